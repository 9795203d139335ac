"""Running headers, footers and page numbers: lines in the first or last two rows of a
page that recur across pages (digits aside) or are only a page number. They leave the
running text and are kept on the page (`PdfPage.furniture`).

Rows, not a band of the page's height: a slip opinion's running head sits a seventh of
the page down, below a wide margin, yet it is the page's first row."""

from __future__ import annotations

import re
from collections import Counter

from sosoapi.extract.pdf.layout import Line

# How many rows at the top and at the bottom of a page may hold a running head or foot,
# and how many a lone page number.
_EDGE_ROWS = 2
_NUMBER_ROWS = 1
# A line recurring (digits aside) on at least this share of the pages is furniture: a
# little under a half, as running heads often alternate between odd and even pages.
_RECURRING = 0.4
# Fewer pages than this and nothing can be said to recur (a two-page invoice printed as
# original and copy repeats everything).
_RECURRING_PAGES = 3
_PAGE_NUMBER = re.compile(
    r"^[\W_]*(?:page|p\.|seite|página|pagina)?\s*(?:\d{1,4}|[ivxlcdm]{1,7})"
    r"(?:\s*(?:of|/|von|de)\s*\d{1,4})?[\W_]*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")


def _key(line: Line) -> str:
    return _DIGITS.sub("#", " ".join(line.text.split()).casefold())


def edge_lines(lines: list[Line], depth: int) -> set[int]:
    """The indexes of the lines in the page's first and last `depth` rows."""
    order = sorted(range(len(lines)), key=lambda index: -lines[index].y1)
    rows: list[list[int]] = []
    floor = float("inf")
    for index in order:
        line = lines[index]
        if not rows or line.y1 <= floor:
            rows.append([])
        rows[-1].append(index)
        floor = min(floor, line.y0) if len(rows[-1]) > 1 else line.y0
    chosen = rows[:depth] + rows[-depth:]
    return {index for row in chosen for index in row}


def furniture(pages: list[list[Line]]) -> list[set[int]]:
    """For each page (its lines), the indexes of its furniture lines.

    Needs two pages at least: on a single page nothing recurs, and a lone number at the top
    of a one-page document is as likely a heading's numeral as a page number.
    """
    found: list[set[int]] = [set() for _ in pages]
    if len(pages) < 2:
        return found
    edges = [edge_lines(lines, _EDGE_ROWS) for lines in pages]
    counts: Counter[str] = Counter()
    for lines, edge in zip(pages, edges, strict=True):
        counts.update({_key(lines[index]) for index in edge})
    recurring = len(pages) >= _RECURRING_PAGES
    threshold = max(2, _RECURRING * len(pages))
    for number, (lines, edge) in enumerate(zip(pages, edges, strict=True)):
        numbers = edge_lines(lines, _NUMBER_ROWS)
        for index in edge:
            line = lines[index]
            if (recurring and counts[_key(line)] >= threshold) or (
                index in numbers and _PAGE_NUMBER.match(line.text)
            ):
                found[number].add(index)
    return found
