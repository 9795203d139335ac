"""Steps 3-4 of the main-content extractor (extract/html_main.py): walk the chosen
containers once, iteratively, into blocks with their link share, then keep the blocks
that are the text, judging short ones by their context (as jusText)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from sosoapi.extract.html_tuning import TUNING, Tuning

BLOCK_TAGS = frozenset(
    {
        "p", "div", "section", "article", "main", "header", "blockquote", "pre", "figure",
        "figcaption", "ul", "ol", "dl", "dt", "dd", "li", "table", "tbody", "thead", "tfoot",
        "tr", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "address", "center", "form",
        "fieldset", "details", "summary", "body", "html", "caption",
    }
)  # fmt: skip


_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


_LINE_TAGS = frozenset({"li", "tr", "dt", "dd"})


_CELL_TAGS = frozenset({"td", "th"})


_SPACE = re.compile(r"[ \t\n\r\f\v\u00a0\u200b]+")


# CJK ideographs, kana, Hangul and full-width forms.
_WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


_SENTENCE_ENDS = frozenset(".!?…\"'»”")


DROPPED = "dropped"


# A short block that is a date or a time stamp is a byline or a comment header.
_STAMP = re.compile(r"\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{1,2}:\d{2}\b")


# A sentence: five or more words of letters, closed by a full stop, "!" or "?".
_SENTENCE = re.compile(r"^(?:[^\W\d]+[,;]?\s+){4,}[^\W\d]+[.!?…]$")


@dataclass(slots=True)
class Block:
    """One output line or paragraph under construction."""

    kind: str  # "para", "heading", "line"
    parts: list[str]
    link_chars: int = 0

    def text(self) -> str:
        return _SPACE.sub(" ", "".join(self.parts)).strip()


@dataclass(slots=True)
class Walked:
    """One block as the walk met it, before any rule judged it."""

    text: str
    kind: str  # "para", "heading", "item", "line"
    link_chars: int
    element: LexborNode  # the innermost block element holding the text

    def judged(self, tuning: Tuning = TUNING) -> tuple[str, str]:
        """(text, kind), the kind `dropped` for a short run of links or a time stamp."""
        return self.text, self.kind if keep(self.text, self.link_chars, tuning) else DROPPED


def walk(container: LexborNode) -> list[Walked]:
    """Every block under `container` with its text, in document order."""
    out: list[Walked] = []
    current = Block("para", [])
    link_depth = 0
    open_blocks = [container]  # the block elements the walk is inside, innermost last
    # Lexbor's own pre-order walk (C, no recursion) enters each node; a node whose parent
    # is not the innermost element entered last means the walk has left that element (and
    # maybe more): `entered` holds the elements not yet left, innermost last.
    entered: list[tuple[int, str]] = []
    for node in container.traverse(include_text=True):
        if entered:
            parent = node.parent
            parent_id = parent.mem_id if parent is not None else None
            while entered and entered[-1][0] != parent_id:
                left = entered.pop()[1]
                current, link_depth = _leave(left, current, link_depth, open_blocks, out)
        tag = node.tag
        if tag == "-text":
            text = node.text_content or ""
            current.parts.append(text)
            if link_depth:
                current.link_chars += len(text.strip())
            continue
        if tag in ("-comment", "-doctype") or tag is None:
            continue
        if tag == "br":
            current.parts.append("\n")
            continue
        if tag == "a":
            link_depth += 1
        elif tag in BLOCK_TAGS:
            current = _flush(current, open_blocks[-1], out)
            current.kind = _kind(tag)
            open_blocks.append(node)
        entered.append((node.mem_id, tag))
    while entered:
        left = entered.pop()[1]
        current, link_depth = _leave(left, current, link_depth, open_blocks, out)
    _flush(current, open_blocks[-1], out)
    return out


def _leave(
    tag: str, current: Block, link_depth: int, open_blocks: list[LexborNode], out: list[Walked]
) -> tuple[Block, int]:
    """The walk leaves an element: a link ends, a block is recorded, a cell gets its bar."""
    if tag == "a":
        link_depth -= 1
    elif tag in BLOCK_TAGS:
        current = _flush(current, open_blocks[-1], out)
        open_blocks.pop()
    elif tag in _CELL_TAGS:
        current.parts.append(" | ")
    return current, link_depth


def _kind(tag: str) -> str:
    if tag in _HEADINGS:
        return "heading"
    if tag in _LINE_TAGS:
        return "item" if tag == "li" else "line"
    return "para"


def _flush(block: Block, element: LexborNode, out: list[Walked]) -> Block:
    """Record the block if it has text; start a new one."""
    if block.parts:
        text = block.text().strip(" |")
        if text:
            out.append(Walked(text, block.kind, block.link_chars, element))
    return Block("para", [])


def keep(text: str, link_chars: int, tuning: Tuning) -> bool:
    length = len(text)
    linked = length < tuning.long_block and link_chars > tuning.max_link_share * length
    if linked and not _linked_sentence(text, link_chars, tuning):
        return False
    return not (length <= tuning.stamp_max and _STAMP.search(text))


def _linked_sentence(text: str, link_chars: int, tuning: Tuning) -> bool:
    """A sentence that cites its source through a link ("Police <a>said the tablets
    contained DNP</a>, a toxic chemical."): prose outside the links and a closing full
    stop, which a run of links or a link with a date beside it does not have."""
    return len(text) - link_chars >= tuning.linked_sentence_prose and text[-1:] in _SENTENCE_ENDS


def kept_blocks(blocks: list[tuple[str, str]], tuning: Tuning = TUNING) -> list[tuple[str, str]]:
    """Step 4: the judged blocks that make the text."""
    return [blocks[index] for index in kept_indices(blocks, tuning)]


def kept_indices(blocks: list[tuple[str, str]], tuning: Tuning = TUNING) -> list[int]:
    """Drop link blocks, and short blocks whose context is not content (as jusText)."""
    short = [_is_short(text, kind, tuning) for text, kind in blocks]
    before, after = _neighbour_kinds(blocks, short)
    indices = [
        index
        for index, (text, kind) in enumerate(blocks)
        if kind != DROPPED
        and not (kind == "heading" and _introduces_links(blocks, index + 1, text, tuning))
        and not (short[index] and not _in_content(kind, before[index], after[index]))
    ]
    # Both trims cut at the ends only: the tail a suffix, the head at most the first.
    tail = _trim_tail([blocks[index] for index in indices], tuning)
    head = _trim_head(tail, tuning)
    return indices[len(tail) - len(head) : len(tail)]


def _is_short(text: str, kind: str, tuning: Tuning) -> bool:
    return kind in ("heading", "para") and width(text) < tuning.short


def _in_content(kind: str, before: str | None, after: str | None) -> bool:
    """A short heading needs content after it; a short paragraph content on both sides.

    `before` and `after` are the kinds of the nearest blocks that are not short
    themselves (None: none); the start of the container counts as content, its end
    does not.
    """
    if kind == "heading":
        return after not in (None, DROPPED)
    return after not in (None, DROPPED) and before != DROPPED


def _neighbour_kinds(
    blocks: list[tuple[str, str]], short: list[bool]
) -> tuple[list[str | None], list[str | None]]:
    """For each block, the kind of the nearest block before it and after it that is not
    short (None: none), in one pass each way: a page of many short blocks costs linear
    time, not a rescan per block."""
    before: list[str | None] = []
    nearest: str | None = None
    for (_, kind), is_short in zip(blocks, short, strict=True):
        before.append(nearest)
        if not is_short:
            nearest = kind
    after: list[str | None] = []
    nearest = None
    for (_, kind), is_short in zip(reversed(blocks), reversed(short), strict=True):
        after.append(nearest)
        if not is_short:
            nearest = kind
    after.reverse()
    return before, after


def _trim_tail(blocks: list[tuple[str, str]], tuning: Tuning) -> list[tuple[str, str]]:
    """Drop short blocks after the last substantial paragraph: they label what follows the
    text (related links, share bars, tags), as jusText classifies short blocks by context."""
    end = len(blocks)
    while (
        end
        and width(blocks[end - 1][0]) < tuning.short_tail
        and blocks[end - 1][1] in ("heading", "para")
    ):
        end -= 1
    return blocks[:end] if any(width(t) >= tuning.good_block for t, _ in blocks[:end]) else blocks


def _trim_head(blocks: list[tuple[str, str]], tuning: Tuning) -> list[tuple[str, str]]:
    """Drop a short first paragraph above prose: the kicker, breadcrumb, byline or date
    line printed above the text, which the context rule keeps because the container's
    start counts as content. Headings stay (a short first heading is the article's own),
    and so does a text of short paragraphs only, where the first is as much text as any,
    and a first sentence of five or more words without digits ending in a full stop:
    labels are not written as sentences, and datelines carry digits."""
    if not blocks or blocks[0][1] != "para" or width(blocks[0][0]) >= tuning.short_head:
        return blocks
    if _SENTENCE.match(blocks[0][0]):
        return blocks
    if any(width(text) >= tuning.good_block for text, _ in blocks[1:]):
        return blocks[1:]
    return blocks


def width(text: str) -> int:
    """Length for the short-block rules, a CJK character counted twice: it carries about
    as much as a short Latin word, so a 40-character CJK paragraph is prose, not a label."""
    return len(text) + len(_WIDE.findall(text))


def _introduces_links(
    blocks: list[tuple[str, str]], start: int, heading: str, tuning: Tuning
) -> bool:
    """A heading over a link list labels it; a heading of prose length is a standfirst."""
    if len(heading) >= tuning.good_block:
        return False
    for _, kind in blocks[start : start + 3]:
        if kind != "heading":
            return kind == DROPPED
    return start >= len(blocks)


def joined(blocks: list[tuple[str, str]]) -> str:
    """The text of kept blocks: paragraphs and headings apart by a blank line, items and
    rows one per line, one spelling per character (NFC, as readers and search queries
    write it)."""
    pieces: list[str] = []
    previous = ""
    for text, kind in blocks:
        line = f"- {text}" if kind == "item" else text
        grouped = kind in ("item", "line") and previous == kind
        if pieces:
            pieces.append("\n" if grouped else "\n\n")
        pieces.append(line)
        previous = kind
    return unicodedata.normalize("NFC", "".join(pieces))
