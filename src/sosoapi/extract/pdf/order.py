"""Reading order on one page: the lines `layout` made, as blocks a person reads in turn.

A recursive cut. Columns first, where a gutter runs the region's height and both sides
are running text (lines of a column's length, not a table's or a form's short cells side
by side, which read row by row). A region without such a cut keeps PDFium's stream order
where that order is plausible: it never reads a line above one it has already read in the
same vertical strip (a producer that draws a box, a cell or a table row whole draws it in
the order it is read), and it does not set a run of line numbers apart from their lines.
Otherwise the cut goes on: the columns it found, or horizontal bands, and in a region no
cut parts, rows read across.
"""

from __future__ import annotations

import itertools
from statistics import median

from sosoapi.extract.pdf.layout import Line, same_row

# Gaps in units of the page's median line height.
_BAND_GAP = 0.9
_GUTTER = 0.5
# Each side of a column cut spans this share of the region at least.
_COLUMN_WIDTH = 0.3
# A column of running text has lines of this many characters at least (median); a table's
# or a form's cells, or words set far apart on one line, are shorter.
_COLUMN_CHARS = 20
# Two sides of short lines where this share of the smaller side's lines share a row with
# a line of the other are a table's cells, read row by row (the tuning half: 0.58 to 1.0
# score alike; the middle taken).
_ROW_SHARE = 0.8
# The vertical strips a region is cut into to tell whether a line stands above one read
# before it (24 and 48 score alike on the tuning half, 12 a little lower).
_STRIPS = 24


def reading_order(lines: list[Line], rtl: bool = False) -> list[list[Line]]:
    """The page's lines (in stream order) as blocks in reading order (columns right to
    left when `rtl`)."""
    if not lines:
        return []
    for seq, line in enumerate(lines):
        line.seq = seq
    return _cut(lines, median(line.height for line in lines), rtl)


def _cut(lines: list[Line], unit: float, rtl: bool) -> list[list[Line]]:
    if len(lines) < 2:
        return [lines]
    columns = _split_x(lines, _GUTTER * unit)
    parted = len(columns) > 1 and _text_columns(columns)
    if not (parted and _running_text(columns)):  # no confident cut: the producer's order
        kept = _stream(lines, rtl)
        if kept:
            return kept
    if parted:
        ordered = reversed(columns) if rtl else columns
        return [block for column in ordered for block in _cut(column, unit, rtl)]
    bands = _split_y(lines, _BAND_GAP * unit)
    if len(bands) > 1:
        return [block for band in bands for block in _cut(band, unit, rtl)]
    return [_rows(lines, rtl)]


def _stream(lines: list[Line], rtl: bool) -> list[list[Line]]:
    """The region in PDFium's stream order, a block per run, if that order is plausible;
    else nothing."""
    stream = sorted(lines, key=lambda item: item.seq)
    if _over_read(stream) or any(_backwards(a, b, rtl) for a, b in itertools.pairwise(stream)):
        return []
    blocks: list[list[Line]] = [[stream[0]]]
    for a, b in itertools.pairwise(stream):
        if b.y1 > a.y1 + 0.5 * a.height and not same_row(a, b):  # up to a new box or cell
            blocks.append([])
        blocks[-1].append(b)
    return [] if any(_line_numbers(block) for block in blocks) else blocks


def _over_read(stream: list[Line]) -> bool:
    """Some line stands above a line read before it in the same vertical strip (a title
    or a header block drawn after the text below it)."""
    left = min(line.x0 for line in stream)
    width = (max(line.x1 for line in stream) - left) / _STRIPS or 1.0
    floor = [float("inf")] * _STRIPS
    for line in stream:
        slack = 0.5 * line.height
        first = max(0, int((line.x0 + slack - left) / width))
        last = min(_STRIPS - 1, int((line.x1 - slack - left) / width))
        strips = range(first, last + 1)
        if any(floor[i] < line.y0 for i in strips):
            return True
        for i in strips:
            if line.y1 < floor[i]:
                floor[i] = line.y1
    return False


def _backwards(a: Line, b: Line, rtl: bool) -> bool:
    """`b` follows `a` on its row against the page's direction (a form's value drawn
    before its label on a right-to-left page)."""
    if not same_row(a, b):
        return False
    return b.x1 > a.x1 if rtl else b.x0 < a.x0


def _line_numbers(block: list[Line]) -> bool:
    """A run of three numerals or more drawn apart from their lines (a transcript's or a
    draft's line numbers): they go beside their lines, read across the rows."""
    return len(block) >= 3 and all(line.text.isdigit() for line in block)


def _split_x(lines: list[Line], gutter: float) -> list[list[Line]]:
    """The lines either side of the widest vertical gap wider than `gutter`, if any."""
    ordered = sorted(lines, key=lambda item: item.x0)
    widest, at, right = gutter, 0, float("-inf")
    for index, line in enumerate(ordered):
        if index and line.x0 - right > widest:
            widest, at = line.x0 - right, index
        right = max(right, line.x1)
    return [ordered[:at], ordered[at:]] if at else [ordered]


def _split_y(lines: list[Line], gap: float) -> list[list[Line]]:
    groups: list[list[Line]] = []
    bottom = float("inf")
    for line in sorted(lines, key=lambda item: -item.y1):
        if not groups or line.y1 < bottom - gap:
            groups.append([])
        groups[-1].append(line)
        bottom = min(bottom, line.y0)
    return groups


def _text_columns(columns: list[list[Line]]) -> bool:
    """Columns, not a margin's line numbers nor a table's rows: each side of three lines or
    more spans a third of the region at least (a side of a line or two is a stray mark, a
    page number in the margin, and goes with the cut), and the sides are not `_table_rows`."""
    region = max(line.x1 for c in columns for line in c) - min(line.x0 for line in columns[0])
    columns_of_text = 0
    for column in columns:
        if len(column) < 3:
            continue
        width = max(line.x1 for line in column) - min(line.x0 for line in column)
        if width < _COLUMN_WIDTH * region:
            return False
        columns_of_text += 1
    return columns_of_text >= 1 and not _table_rows(columns)


def _running_text(columns: list[list[Line]]) -> bool:
    """Every side of three lines or more has lines of a text column's length."""
    return all(
        median(len(line.text) for line in side) >= _COLUMN_CHARS
        for side in columns
        if len(side) >= 3
    )


def _table_rows(columns: list[list[Line]]) -> bool:
    """Both sides are short cells, most of them on a row with a cell of the other side
    (a form's labels and values, words set far apart): read row by row, not as columns."""
    left, right = columns
    if min(len(left), len(right)) < 3:
        return False
    if max(median(len(line.text) for line in side) for side in columns) >= _COLUMN_CHARS:
        return False
    smaller, other = (left, right) if len(left) <= len(right) else (right, left)
    paired = sum(1 for line in smaller if any(same_row(line, item) for item in other))
    return paired >= _ROW_SHARE * len(smaller)


def _rows(lines: list[Line], rtl: bool) -> list[Line]:
    """Lines top to bottom; lines sharing a row read across it."""
    ordered = sorted(lines, key=lambda item: -item.y1)
    rows: list[list[Line]] = []
    for line in ordered:
        if rows and same_row(rows[-1][0], line):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [
        line for row in rows for line in sorted(row, key=lambda item: -item.x1 if rtl else item.x0)
    ]
