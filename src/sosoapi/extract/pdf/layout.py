"""Lines on one page from PDFium's characters and their boxes, and their text as read.

PDFium gives characters in content-stream order with its own line breaks. This layer
groups characters into lines by geometry (`order` then puts the lines in reading order) and
joins them as a person reads: lines of a paragraph with a space, a hyphen at a line end
joined into its word, CJK lines run on, paragraphs and blocks on lines of their own.

Latin ligatures need nothing here: PDFium already hands a ligature glyph as its letters
(no U+FB00-FB06 reaches this layer on the dev set, where pdfminer.six leaves a dozen), and
Arabic presentation forms as letters too; but it hands Arabic's lam-alef in visual order
(`rtl_ligatures` turns it back).
"""

from __future__ import annotations

import itertools
import unicodedata
from collections import Counter
from dataclasses import dataclass

# A glyph: (character, left, bottom, right, top) in page points, y growing upward;
# LINE_BREAK as the character is PDFium's own line break.
Glyph = tuple[str, float, float, float, float]
LINE_BREAK = "\n"
# PDFium marks a hyphen it found at a line end (its text has U+FFFE, its character code
# is 2) and drops the line break after it.
LINE_END_HYPHEN = "\ufffe"
PDFIUM_HYPHEN = 0x02
_HYPHENS = ("-", "\u00ad", LINE_END_HYPHEN)
# Arabic's stretching stroke (kashida): justification, not a letter.
_TATWEEL = "\u0640"
# Han and kana run on without spaces; Hangul is spaced by word, as Latin is.
_CJK = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
# Gaps in units of the line's height.
_SPACE_GAP = 0.2
_WORD_JUMP = 1.2
_PARAGRAPH_GAP = 0.6
# The glyphs the page's text direction is judged on.
_DIRECTION_SAMPLE = 400


@dataclass(slots=True)
class Line:
    parts: list[str]
    x0: float
    y0: float
    x1: float
    y1: float
    last_left: float
    last_right: float
    rtl: bool = False
    # the mean glyph height: a superscript or a drop cap moves it less than the box
    height: float = 0.0
    glyphs: int = 1
    # drawn across the page's direction, one glyph above the other (a margin stamp)
    vertical: bool = False
    # the line's place in PDFium's stream order among the page's running lines
    seq: int = 0

    @property
    def text(self) -> str:
        return "".join(self.parts).strip()


def is_rtl(char: str) -> bool:
    return char >= "\u0590" and unicodedata.bidirectional(char) in ("R", "AL")


def upright(glyphs: list[Glyph], width: float, height: float) -> tuple[list[Glyph], float]:
    """The glyphs turned so that the page's text runs left to right (a page drawn sideways,
    whether by /Rotate or by its text matrix), and the height of the page so turned.

    The direction is the one most consecutive left-to-right glyphs of a line step in.
    """
    steps = Counter[str]()
    for (a, *box_a), (b, *box_b) in itertools.pairwise(glyphs[:_DIRECTION_SAMPLE]):
        if LINE_BREAK in (a, b) or is_rtl(a) or a.isspace() or b.isspace():
            continue
        dx, dy = box_b[0] - box_a[0], box_b[1] - box_a[1]
        steps["right" if dx > 0 else "left"] += abs(dx) > abs(dy)
        steps["up" if dy > 0 else "down"] += abs(dy) > abs(dx)
    turn = steps.most_common(1)[0][0] if steps else "right"
    if turn == "right" or steps[turn] == 0:
        return glyphs, height
    turned: list[Glyph] = []
    for char, left, bottom, right, top in glyphs:
        if turn == "up":
            box = (bottom, width - right, top, width - left)
        elif turn == "down":
            box = (height - top, left, height - bottom, right)
        else:
            box = (width - right, height - top, width - left, height - bottom)
        turned.append((char, *box))
    return turned, width if turn in ("up", "down") else height


def rtl_ligatures(glyphs: list[Glyph]) -> list[Glyph]:
    """A right-to-left ligature (Arabic lam-alef) that PDFium hands as two letters on one
    box comes in visual order, alef first: put its letters in logical order."""
    for index in range(len(glyphs) - 1):
        glyph = glyphs[index]
        if glyph[0] < "\u0590":  # the cheap test first: this runs once per character
            continue
        after = glyphs[index + 1]
        if glyph[1:] == after[1:] and is_rtl(glyph[0]) and is_rtl(after[0]):
            glyphs[index], glyphs[index + 1] = after, glyph
    return glyphs


def lines_of(glyphs: list[Glyph]) -> list[Line]:
    """Characters to lines: a new line where PDFium breaks one or the geometry jumps."""
    lines: list[Line] = []
    current: Line | None = None
    for char, left, bottom, right, top in rtl_ligatures(glyphs):
        if char == LINE_BREAK:
            current = None
            continue
        if right <= left or top <= bottom:  # no box: a space PDFium generated
            if current is not None and char.isspace():
                current.parts.append(" ")
            continue
        rtl = is_rtl(char)
        if current is not None and _continues(current, left, bottom, right, top, rtl):
            _extend(current, char, left, bottom, right, top, rtl)
        elif current is not None and _stacked(current, left, bottom, right, top):
            _extend(current, char, left, bottom, right, top, rtl)
            current.vertical = True
        else:
            current = Line([char], left, bottom, right, top, left, right, rtl,
                           top - bottom)  # fmt: skip
            lines.append(current)
    return _merge_neighbours([line for line in lines if line.text])


def _continues(line: Line, left: float, bottom: float, right: float, top: float, rtl: bool) -> bool:
    glyph = top - bottom
    height = glyph if glyph > line.height else line.height
    overlap = (top if top < line.y1 else line.y1) - (bottom if bottom > line.y0 else line.y0)
    if overlap < 0.5 * (glyph if glyph < line.height else line.height):
        return False
    if rtl or line.rtl:  # right to left: the next glyph stands on either side
        gap = max(left - line.x1, line.x0 - right)
        return gap < _WORD_JUMP * height
    # a ligature PDFium split shares its box: the next glyph may start where this one did
    return left >= line.last_left - 0.1 * height and left - line.last_right < _WORD_JUMP * height


def _stacked(line: Line, left: float, bottom: float, right: float, top: float) -> bool:
    """The glyph sits right above or below the line's last one, as in turned text."""
    if line.glyphs > 1 and not line.vertical:
        return False
    width = right - left
    above = abs(bottom - line.y1) < 0.5 * width
    below = abs(top - line.y0) < 0.5 * width
    return abs(left - line.last_left) < 0.2 * width and (above or below)


def _extend(line: Line, char: str, left: float, bottom: float, right: float, top: float,
            rtl: bool) -> None:  # fmt: skip
    line.parts.append(char)
    # comparisons, not min()/max(): this runs once per character of the document
    if left < line.x0:
        line.x0 = left
    if right > line.x1:
        line.x1 = right
    if bottom < line.y0:
        line.y0 = bottom
    if top > line.y1:
        line.y1 = top
    line.last_left, line.last_right = left, right
    line.rtl = line.rtl or rtl
    line.height += (top - bottom - line.height) / (line.glyphs + 1)
    line.glyphs += 1


def _merge_neighbours(lines: list[Line]) -> list[Line]:
    """Join a line with the next one in stream order when they sit side by side on one
    baseline band (a superscript, a change of font that PDFium broke the line at)."""
    merged: list[Line] = []
    for line in lines:
        last = merged[-1] if merged else None
        if (
            last is not None
            and not (last.vertical or line.vertical)
            and same_row(last, line)
            and _adjacent(last, line)
        ):
            gap = line.x0 - last.x1 if not last.rtl else last.x0 - line.x1
            joiner = " " if gap > _SPACE_GAP * min(last.height, line.height) else ""
            last.parts.extend([joiner, *line.parts])
            last.x0, last.x1 = min(last.x0, line.x0), max(last.x1, line.x1)
            last.y0, last.y1 = min(last.y0, line.y0), max(last.y1, line.y1)
            last.last_left, last.last_right = line.last_left, line.last_right
            total = last.glyphs + line.glyphs
            last.height = (last.height * last.glyphs + line.height * line.glyphs) / total
            last.glyphs = total
        else:
            merged.append(line)
    return merged


def same_row(a: Line, b: Line) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap >= 0.4 * min(a.y1 - a.y0, b.y1 - b.y0)


def _adjacent(a: Line, b: Line) -> bool:
    height = max(a.height, b.height)
    gap = b.x0 - a.x1 if not (a.rtl or b.rtl) else max(b.x0 - a.x1, a.x0 - b.x1)
    return -0.5 * height < gap < _WORD_JUMP * height


def margin_stamps(lines: list[Line]) -> set[int]:
    """The indexes of turned lines standing in a side margin, clear of the running text
    (an arXiv identifier up the left edge); turned text among the rest (a drawing's
    dimensions) stays where it is."""
    running = [line for line in lines if not line.vertical]
    if not running:
        return set()
    left, right = min(line.x0 for line in running), max(line.x1 for line in running)
    return {
        index
        for index, line in enumerate(lines)
        if line.vertical and (line.x1 <= left or line.x0 >= right)
    }


def page_text(blocks: list[list[Line]]) -> str:
    """Blocks as paragraphs: lines joined as read, hyphenated words made whole."""
    paragraphs: list[str] = []
    for block in blocks:
        text = ""
        previous: Line | None = None
        for line in block:
            piece = line.text
            if previous is None:
                text = piece
            elif _same_paragraph(previous, line):
                text = _join(text, piece)
            else:
                paragraphs.append(text)
                text = piece
            previous = line
        if text:
            paragraphs.append(text)
    joined = "\n".join(_tidy(paragraph) for paragraph in paragraphs)
    return joined.strip()


def _same_paragraph(previous: Line, line: Line) -> bool:
    if same_row(previous, line):
        return True
    gap = previous.y0 - line.y1
    return gap <= _PARAGRAPH_GAP * max(previous.height, line.height)


def _join(text: str, piece: str) -> str:
    if text.endswith(_HYPHENS):
        if piece[:1].islower():
            return text[:-1] + piece
        return text[:-1] + "-" + piece
    if is_cjk(text[-1:]) and is_cjk(piece[:1]):  # CJK lines run on without a space
        return text + piece
    return f"{text} {piece}"


def is_cjk(char: str) -> bool:
    return bool(char) and any(low <= ord(char) <= high for low, high in _CJK)


def _tidy(paragraph: str) -> str:
    paragraph = paragraph.replace(LINE_END_HYPHEN, "-").replace("\u00ad", "")
    paragraph = paragraph.replace(_TATWEEL, "")
    return " ".join(paragraph.split())
