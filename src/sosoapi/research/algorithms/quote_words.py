"""Where a quote and its aligned passage differ, word by word (pure, no I/O).

A character alignment drops a differing word at an edge of the passage (it costs less to
leave it out): quoting "... until the autumn" aligns "... until the ". Aligning words
around the span finds the source words standing where the quote's first and
last words stand, and names each run of words that differs. The alignment is
`sequence_align` (bounded, never quadratic: a 2,000-character quote of two repeated
words took difflib about a second).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sosoapi.research.algorithms.sequence_align import Block, align

_ANY_WORD = re.compile(r"\w+")
# normalised span [start, end) -> the original span it came from
Span = Callable[[int, int], tuple[int, int]]


@dataclass(frozen=True, slots=True)
class Difference:
    """A run of words where the quote and the source differ: the quote's words (empty when
    the source has words the quote lacks), and the source's at [start, end) of the
    original text (start == end when the quote adds words the source lacks)."""

    quote: str
    start: int
    end: int


def _words(text: str, lo: int = 0, hi: int | None = None) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _ANY_WORD.finditer(text, lo, hi or len(text))]


def _chained(blocks: list[Block], inside: list[int]) -> list[Block]:
    """The matching word blocks that make one passage: those touching the aligned span,
    and their neighbours whose gap in the source is at most the quote's gap plus two
    (a word the quote adds or drops), never a lone word further away."""
    touching = [
        i for i, (_, j, size) in enumerate(blocks) if j <= inside[-1] and j + size > inside[0]
    ]
    if not touching:
        return []
    lo, hi = touching[0], touching[-1]
    while lo > 0 and _near(blocks[lo - 1], blocks[lo]):
        lo -= 1
    while hi + 1 < len(blocks) and _near(blocks[hi], blocks[hi + 1]):
        hi += 1
    return blocks[lo : hi + 1]


def _near(before: Block, after: Block) -> bool:
    gap_quote = after[0] - (before[0] + before[2])
    gap_source = after[1] - (before[1] + before[2])
    return 0 <= gap_source <= gap_quote + 2


def through_words(
    quote: str, hay: str, span: Span, start: int, end: int
) -> tuple[int, int, tuple[Difference, ...]]:
    """Widen the aligned span [start, end) of the normalised text to the source words that
    stand where the quote's first and last words stand, and name the runs that differ.

    A character alignment drops a differing word at an edge (it costs less to leave it
    out); aligning words around the span finds the counterpart words instead.
    """
    quoted = [w for w, _, _ in _words(quote)]
    if not quoted:
        return start, end, ()
    margin = len(quote) // 2 + 16
    around = _words(hay, max(0, start - margin), min(len(hay), end + margin))
    inside = [i for i, (_, a, b) in enumerate(around) if a < end and b > start]
    if not inside:
        return start, end, ()
    blocks = _chained(list(align(quoted, [w for w, _, _ in around]).blocks), inside)
    if not blocks:
        return start, end, ()
    (first_a, first_b, _), (last_a, last_b, last_size) = blocks[0], blocks[-1]
    lead = first_a  # quote words before the first word in common
    trail = len(quoted) - (last_a + last_size)  # and after the last
    lo = max(0, first_b - lead)
    hi = min(len(around), last_b + last_size + trail)
    passage = around[lo:hi]
    differences: list[Difference] = []
    for op, a1, a2, b1, b2 in align(quoted, [w for w, _, _ in passage]).opcodes:
        if op == "equal":
            continue
        if b2 > b1:  # source words stand here: their original span
            at, until = span(passage[b1][1], passage[b2 - 1][2])
        else:  # the quote adds words: an empty span where they would stand
            at = until = (
                span(passage[b1 - 1][1], passage[b1 - 1][2])[1]
                if b1
                else (span(passage[0][1], passage[0][2])[0])
            )
        differences.append(Difference(" ".join(quoted[a1:a2]), at, until))
    return min(start, passage[0][1]), max(end, passage[-1][2]), tuple(differences)
