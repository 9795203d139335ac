"""What changed between two texts, word by word, and between two caption cue lists.

Pure functions, no I/O. Texts are cut into words, single punctuation marks and runs of
white space; the token sequences are aligned by `sequence_align` (a shortest edit script
up to its bound, anchored and then coarse past it, never quadratic), and each changed run
is reported with code point offsets into both texts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sosoapi.research.algorithms.sequence_align import align

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)
Op = Literal["insert", "delete", "replace"]


@dataclass(frozen=True, slots=True)
class Change:
    op: Op
    from_start: int
    from_end: int
    to_start: int
    to_end: int


@dataclass(frozen=True, slots=True)
class TextDiff:
    """The changes and their sums; `coarse` counts the regions past the alignment's bound,
    each reported as one replace rather than word by word (0: word by word throughout)."""

    changes: tuple[Change, ...]
    chars_added: int
    chars_removed: int
    unchanged_ratio: float
    coarse: int


def _cuts(text: str) -> tuple[list[str], list[int]]:
    """Tokens and their start offsets, with `len(text)` appended as the last boundary."""
    tokens, starts = [], []
    for m in _TOKEN.finditer(text):
        tokens.append(m.group())
        starts.append(m.start())
    starts.append(len(text))
    return tokens, starts


def diff_text(old: str, new: str) -> TextDiff:
    """Word-level changes from `old` to `new`, with the share of characters kept."""
    a, a_at = _cuts(old)
    b, b_at = _cuts(new)
    changes: list[Change] = []
    kept = 0
    alignment = align(a, b)
    for tag, i1, i2, j1, j2 in alignment.opcodes:
        if tag == "equal":
            kept += a_at[i2] - a_at[i1]
            continue
        op: Op = "replace" if tag == "replace" else ("insert" if tag == "insert" else "delete")
        changes.append(Change(op, a_at[i1], a_at[i2], b_at[j1], b_at[j2]))
    removed = sum(c.from_end - c.from_start for c in changes)
    added = sum(c.to_end - c.to_start for c in changes)
    total = len(old) + len(new)
    ratio = 1.0 if total == 0 else round(2 * kept / total, 4)
    return TextDiff(tuple(changes), added, removed, ratio, alignment.coarse)


SegmentOp = Literal["added", "removed", "retimed"]


@dataclass(frozen=True, slots=True)
class SegmentChange:
    op: SegmentOp
    from_index: int | None
    to_index: int | None
    text: str
    from_times: tuple[int, int] | None
    to_times: tuple[int, int] | None


def diff_segments(
    old: Sequence[tuple[str, int, int]], new: Sequence[tuple[str, int, int]]
) -> list[SegmentChange]:
    """Cues (text, start_ms, end_ms) added, removed, or kept with other times; cues are
    aligned by their texts (`sequence_align`: past its bound a region of cues is all
    removed and added)."""
    out: list[SegmentChange] = []
    for tag, i1, i2, j1, j2 in align([s[0] for s in old], [s[0] for s in new]).opcodes:
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                if old[i][1:] != new[j][1:]:
                    out.append(SegmentChange("retimed", i, j, new[j][0], old[i][1:], new[j][1:]))
            continue
        for i in range(i1, i2):
            out.append(SegmentChange("removed", i, None, old[i][0], old[i][1:], None))
        for j in range(j1, j2):
            out.append(SegmentChange("added", None, j, new[j][0], None, new[j][1:]))
    return out
