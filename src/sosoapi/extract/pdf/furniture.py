"""Running headers, footers and page numbers: lines in a page's top or bottom band that
recur across pages (digits aside) or are only a page number. They leave the running text
and are kept on the page (`PdfPage.furniture`)."""

from __future__ import annotations

import re
from collections import Counter

from sosoapi.extract.pdf.layout import Line

# The band at the top and at the bottom of a page, as a share of its height.
_BAND = 0.09
# A line recurring (digits aside) on at least this share of the pages is furniture.
_RECURRING = 0.5
_PAGE_NUMBER = re.compile(
    r"^[\W_]*(?:page|p\.|seite|página|pagina)?\s*(?:\d{1,4}|[ivxlcdm]{1,7})"
    r"(?:\s*(?:of|/|von|de)\s*\d{1,4})?[\W_]*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")


def _key(line: Line) -> str:
    return _DIGITS.sub("#", " ".join(line.text.split()).casefold())


def in_band(line: Line, page_height: float) -> bool:
    return line.y0 >= page_height * (1 - _BAND) or line.y1 <= page_height * _BAND


def furniture(pages: list[tuple[list[Line], float]]) -> list[set[int]]:
    """For each page (its lines and height), the indexes of its furniture lines.

    Needs two pages at least: on a single page nothing recurs, and a lone number at the top
    of a one-page document is as likely a heading's numeral as a page number.
    """
    found: list[set[int]] = [set() for _ in pages]
    if len(pages) < 2:
        return found
    counts: Counter[str] = Counter()
    for lines, height in pages:
        counts.update({_key(line) for line in lines if in_band(line, height)})
    threshold = max(2, _RECURRING * len(pages))
    for number, (lines, height) in enumerate(pages):
        for index, line in enumerate(lines):
            if in_band(line, height) and (
                counts[_key(line)] >= threshold or _PAGE_NUMBER.match(line.text)
            ):
                found[number].add(index)
    return found
