"""Where a quotation stands in a text: exact, after normalisation, or approximately.

Pure functions, no I/O. The normalised form of a text keeps, for every character it
produces, the span of original characters it came from, so a match found in the
normalised form is reported with offsets into the original text.

Normalisation (the `normalized` verdict), applied per base character with its combining
marks: Unicode NFKC, case folding, typographic quotes, apostrophes, dashes and the
ellipsis as their plain forms, soft hyphens dropped, and every run of white space as one
space.

`approximate`: the best-aligned passage of the normalised text reaches
`APPROXIMATE_THRESHOLD` in rapidfuzz's `partial_ratio` (an Indel similarity of the quote
against the passage of the same length that fits it best), so a few words changed,
dropped or added still match; below it the verdict is `absent` and that passage is the
`closest`.

A caption cue's speaker label ("Jane Whitaker: ") is not spoken words: the quote is also
judged without the labels, so it matches a WebVTT copy as it matches the SubRip one.

An approximate passage runs through the words that differ (`quote_words`).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from rapidfuzz import fuzz

from sosoapi.research.algorithms.quote_words import Difference, through_words

Verdict = Literal["exact", "normalized", "approximate", "absent"]
APPROXIMATE_THRESHOLD = 0.85
MAX_MATCHES = 20
_BUCKET = 32
_CANDIDATES = 3
_WORD = re.compile(r"\w{3,}")
_VOTERS = 16
_MAX_HITS = 64
_SHORT = 256
_RANK: dict[Verdict, int] = {"exact": 3, "normalized": 2, "approximate": 1, "absent": 0}
_PLAIN = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2039\u203a\u02bc", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
        "\u2026": "...",
        "\u00ad": None,  # a soft hyphen: an invisible hyphenation hint inside a word
    }
)


def rank(verdict: Verdict) -> int:
    return _RANK[verdict]


@lru_cache(maxsize=8192)
def _fold(cluster: str) -> str:
    """One base character with its marks, normalised; white space becomes one space."""
    folded = unicodedata.normalize("NFKC", cluster).casefold().translate(_PLAIN)
    return " " if folded.isspace() else folded


@dataclass(frozen=True, slots=True)
class Normalized:
    """A normalised text and its offset map, kept as pieces.

    Piece i starts at `norm_starts[i]` in the normalised text and came from the original
    span `[orig_starts[i], orig_ends[i])`; a piece is either one-to-one (each normalised
    character is the original character at the same distance) or a block (every
    normalised character maps to the whole original span).
    """

    text: str
    norm_starts: list[int]
    orig_starts: list[int]
    orig_ends: list[int]
    one_to_one: list[bool]

    def _at(self, index: int) -> tuple[int, int]:
        """The original span of normalised character `index`."""
        i = bisect_right(self.norm_starts, index) - 1
        if self.one_to_one[i]:
            at = self.orig_starts[i] + index - self.norm_starts[i]
            return at, at + 1
        return self.orig_starts[i], self.orig_ends[i]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of normalised characters [start, end)."""
        return self._at(start)[0], self._at(end - 1)[1]


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.pieces: tuple[list[int], list[int], list[int], list[bool]] = ([], [], [], [])

    def add(self, folded: str, start: int, end: int, one_to_one: bool) -> None:
        if not folded:
            return
        for column, value in zip(self.pieces, (self.size, start, end, one_to_one), strict=True):
            column.append(value)  # type: ignore[attr-defined]
        self.parts.append(folded)
        self.size += len(folded)

    def build(self) -> Normalized:
        return Normalized("".join(self.parts), *self.pieces)


_ASCII_SPACES = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


@dataclass(frozen=True, slots=True)
class _Folding:
    """How to fold the plain pieces of one text, and the characters that need blocks."""

    table: dict[int, str]
    swaps: tuple[tuple[str, str], ...]
    special: list[str]


def _folding(text: str) -> _Folding:
    """One look at each distinct character: one-to-one, or special (a block of its own)."""
    if text.isascii():
        return _Folding({}, (), [c for c in _ASCII_SPACES if c in text])
    table: dict[int, str] = {}
    special: list[str] = []
    swaps: set[tuple[str, str]] = set()
    for ch in set(text):
        folded = _fold(ch)
        plain = len(folded) == 1 and not (ch.isspace() or folded.isspace())
        if ch == " " or (plain and not unicodedata.combining(ch)):
            table[ord(ch)] = folded
            case = unicodedata.normalize("NFKC", ch).casefold()
            if case != folded:
                swaps.add((case, folded))
        else:
            special.append(ch)
    return _Folding(table, tuple(sorted(swaps)), special)


def _plain(piece: str, folding: _Folding) -> str:
    """Fold a piece with no special characters, at C speed when the piece allows it."""
    if piece.isascii():
        return piece.lower()
    folded = unicodedata.normalize("NFKC", piece).casefold()
    if len(folded) != len(piece):  # characters composed with each other: go one by one
        return piece.translate(folding.table)
    for old, new in folding.swaps:
        folded = folded.replace(old, new)
    return folded


def _positions(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _blocks(text: str, special: list[str]) -> list[tuple[int, int]]:
    """Spans that do not fold one-to-one: white-space runs, marked clusters, expansions.

    Found with `str.find` per special character, so plain text costs no Python loop.
    """
    hits = sorted(i for needle in [*special, "  "] for i in _positions(text, needle))
    spans: list[tuple[int, int]] = []
    done = 0
    for i in hits:
        if i < done:
            continue
        start, end = i, i + 1
        if text[i].isspace():
            start = i - 1 if i > done and text[i - 1] == " " else i
            while end < len(text) and text[end].isspace():
                end += 1
        elif unicodedata.combining(text[i]) and i > done:
            start = i - 1
        while end < len(text) and unicodedata.combining(text[end]):
            end += 1
        spans.append((start, end))
        done = end
    return spans


def normalize(text: str, skip: Sequence[tuple[int, int]] = ()) -> Normalized:
    """The normalised form of `text` with its offset map (runs of spaces kept as one);
    the spans in `skip` (sorted, apart) are left out, as if they were not there."""
    folding = _folding(text)
    out = _Builder()
    at = 0
    for skip_start, skip_end in [*skip, (len(text), len(text))]:
        _fold_into(out, text, at, skip_start, folding)
        at = max(at, skip_end)
    return out.build()


def _fold_into(out: _Builder, text: str, lo: int, hi: int, folding: _Folding) -> None:
    piece = text[lo:hi]
    at = 0
    for start, end in _blocks(piece, folding.special):
        out.add(_plain(piece[at:start], folding), lo + at, lo + start, True)
        out.add(_fold(piece[start:end]), lo + start, lo + end, False)
        at = end
    out.add(_plain(piece[at:], folding), lo + at, hi, True)


def normalized_quote(quote: str) -> str:
    return normalize(quote).text.strip(" ")


@dataclass(frozen=True, slots=True)
class Found:
    """A passage of the original text: [start, end), how similar it is to the quote, and
    (approximate passages) the runs of words that differ."""

    start: int
    end: int
    similarity: float
    differences: tuple[Difference, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Finding:
    verdict: Verdict
    matches: tuple[Found, ...]
    closest: Found | None = None


def _occurrences(haystack: str, needle: str) -> list[int]:
    found: list[int] = []
    at = haystack.find(needle)
    while at >= 0 and len(found) < MAX_MATCHES:
        found.append(at)
        at = haystack.find(needle, at + 1)
    return found


def _word_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen [start, end) so it neither starts nor ends inside a word."""
    while 0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    return start, end


def _diagonals(quote: str, hay: str) -> list[int]:
    """Where in `hay` the quote most likely starts, best first.

    Each occurrence in `hay` of one of the quote's longest words votes for the start it
    implies; votes are pooled in buckets, so changed or missing words only blur the peak.
    Words found more than `_MAX_HITS` times say little about where and are skipped.
    """
    offsets: dict[str, list[int]] = {}
    for m in _WORD.finditer(quote):
        offsets.setdefault(m.group(), []).append(m.start())
    votes: Counter[int] = Counter()
    voters = [w for w in sorted(offsets, key=len, reverse=True) if hay.count(w) <= _MAX_HITS]
    for word in voters[:_VOTERS]:
        for at in _positions(hay, word):
            for offset in offsets[word]:
                votes[(at - offset) // _BUCKET] += 1
    smoothed = {b: votes[b] + votes.get(b - 1, 0) + votes.get(b + 1, 0) for b in votes}
    best = sorted(smoothed, key=lambda b: (-smoothed[b], b))[:_CANDIDATES]
    return [max(0, b * _BUCKET) for b in best]


def _best_window(quote: str, hay: str, start: int) -> tuple[float, int, int]:
    """(score 0..100, start, end) of the best passage of `hay` near `start`."""
    if len(quote) <= _SHORT:
        pad = max(2 * _BUCKET, len(quote) // 4)
        lo = max(0, start - pad)
        found = fuzz.partial_ratio_alignment(quote, hay[lo : start + len(quote) + pad])
        if found is None:
            return 0.0, start, start
        return found.score, lo + found.dest_start, lo + found.dest_end
    windows = [max(0, start + d) for d in range(-2 * _BUCKET, 2 * _BUCKET + 1, _BUCKET // 2)]
    return max((fuzz.ratio(quote, hay[w : w + len(quote)]), w, w + len(quote)) for w in windows)


def _aligned(quote: str, norm: Normalized, text: str) -> Found | None:
    """The passage that best fits the normalised quote, widened to whole words.

    A short text is aligned whole; in a long one, regions proposed by word votes are
    aligned, so the cost is a few `str.find` scans rather than a full sliding alignment.
    """
    hay = norm.text
    if not quote or not hay:
        return None
    if len(hay) <= 2 * len(quote) + 4 * _BUCKET and len(quote) <= _SHORT:
        found = fuzz.partial_ratio_alignment(quote, hay)
        best = (found.score, found.dest_start, found.dest_end) if found else (0.0, 0, 0)
    else:
        tried = [_best_window(quote, hay, start) for start in _diagonals(quote, hay)]
        best = max(tried, default=(0.0, 0, 0))
    score, start, end = best
    end = min(end, len(hay))
    if end <= start:
        return None
    start, end, differences = through_words(quote, norm.text, norm.span, start, end)
    start, end = _word_bounds(text, *norm.span(start, end))
    return Found(start, end, round(score / 100, 4), differences)


def find_quote(
    text: str,
    quote: str,
    norm: Normalized | None = None,
    ignorable: Sequence[tuple[int, int]] = (),
) -> Finding:
    """Judge `quote` against `text` (pass `norm` when the text's form is already built).

    `ignorable` spans (a caption cue's speaker label) may be left out: the quote is
    judged against the text with them and, failing that, without them, so quoting what
    was said matches whether or not the copy names the speaker.
    """
    exact = _occurrences(text, quote)
    if exact:
        return Finding("exact", tuple(Found(s, s + len(quote), 1.0) for s in exact))
    wanted = normalized_quote(quote)
    if not wanted:
        return Finding("absent", ())
    forms = [norm or normalize(text)]
    if ignorable:
        forms.append(normalize(text, ignorable))
    for form in forms:
        spans = [form.span(s, s + len(wanted)) for s in _occurrences(form.text, wanted)]
        if spans:
            return Finding("normalized", tuple(Found(a, b, 1.0) for a, b in spans))
    aligned = [p for p in (_aligned(wanted, form, text) for form in forms) if p is not None]
    passage = max(aligned, key=lambda p: p.similarity, default=None)
    if passage is not None and passage.similarity >= APPROXIMATE_THRESHOLD:
        return Finding("approximate", (passage,))
    return Finding("absent", (), passage)
