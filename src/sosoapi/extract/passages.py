"""Passages of an evidence text: the units that search indexes and snippets show.

Pure functions. A caption's passages are its cues as they stand in the joined text; a
page's are its lines, long lines cut at white space into windows of at most
`PASSAGE_MAX` characters. Every passage is an exact slice `text[start:end]`, so a
snippet needs no markup and its offsets point into the revision's text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

PASSAGE_MAX = 400
_LINE = re.compile(r"[^\n]+")


@dataclass(frozen=True, slots=True)
class Cue:
    """Where one caption segment stands in the text, and its times."""

    start: int
    end: int
    start_ms: int
    end_ms: int


def cue_spans(text: str, segments: Sequence[tuple[str, int, int]]) -> list[Cue]:
    """Each segment (text, start_ms, end_ms) located in `text`, in order."""
    cues: list[Cue] = []
    at = 0
    for body, start_ms, end_ms in segments:
        found = text.find(body, at)
        if found < 0:
            break  # the text was cut; later cues are not in it
        cues.append(Cue(found, found + len(body), start_ms, end_ms))
        at = found + len(body)
    return cues


# A cue's speaker label as WebVTT voice spans are rendered (`<v Jane Whitaker>` ->
# "Jane Whitaker: ") and SubRip files write them: one to four words, each capitalised or a
# number, then a colon and a space, at the very start of the cue.
_SPEAKER = re.compile(r"((?:[^\W_][\w.'\u2019-]*)(?: [^\W_][\w.'\u2019-]*){0,3}): ")


@dataclass(frozen=True, slots=True)
class Speaker:
    """A cue's leading speaker label: the name, and the span [start, end) of "Name: "."""

    name: str
    start: int
    end: int


def speakers(text: str, cues: Sequence[Cue]) -> list[Speaker]:
    """The speaker label each cue starts with, if any (a label is not spoken words)."""
    found: list[Speaker] = []
    for cue in cues:
        m = _SPEAKER.match(text, cue.start, cue.end)
        if m and all(w[0].isupper() or w[0].isdigit() for w in m.group(1).split()):
            found.append(Speaker(m.group(1), m.start(), m.end()))
    return found


def _windows(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """[start, end) cut at white space into pieces of at most PASSAGE_MAX characters."""
    while end - start > PASSAGE_MAX:
        cut = text.rfind(" ", start + PASSAGE_MAX // 2, start + PASSAGE_MAX)
        cut = cut if cut > start else start + PASSAGE_MAX
        yield start, cut
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        yield start, end


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def text_passages(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each passage of a page's text."""
    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        start, end = _trimmed(text, line.start(), line.end())
        spans.extend(_windows(text, start, end))
    return spans


# PostgreSQL's text-search parser reads `<...>` as markup and `&...;` as entities: it
# drops `<a href=...>` whole and every word after `<script>` up to `</script>`. Our text is
# already plain, so these are the source's own characters; as word separators (which is
# what SQLite's unicode61 makes of them) both stores index the same words. NUL: refused.
# A soft hyphen (U+00AD) is an invisible hyphenation hint inside a word (German pages set
# `Baro&shy;lo`); both stores would split the word there, so it goes.
# One `str.replace` a character: `str.translate` with a table reads a non-ASCII text a
# dictionary look-up a character (20 times the cost on the dev pages' passages).
_SEARCH_FORM = (("<", " "), (">", " "), ("&", " "), ("\x00", " "), ("\u00ad", ""))


def searchable(text: str) -> str:
    """The form of a passage or a query phrase that both stores tokenize alike."""
    text = fold_diacritics(text)
    for character, replacement in _SEARCH_FORM:
        text = text.replace(character, replacement)
    return text


def fold_diacritics(text: str) -> str:
    """NFKC, then marks removed (NFKD without combining characters, recomposed).

    What SQLite's unicode61 `remove_diacritics 2` does inside FTS5, done in Python for
    PostgreSQL (which has no such option without an extension), so both stores match the
    same words: `Zürich` and `Zurich`, Arabic with or without its short-vowel marks.
    """
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    if decomposed.isascii():
        return decomposed
    if _ASTRAL.search(decomposed):
        return unicodedata.normalize("NFC", decomposed.translate(_UNMARKED))
    return unicodedata.normalize("NFC", _bmp_marks().sub("", decomposed))


class _Unmarked(dict[int, str]):
    """A `str.translate` table deleting combining marks, filled as code points are met."""

    def __missing__(self, code: int) -> str:
        kept = "" if unicodedata.combining(chr(code)) else chr(code)
        self[code] = kept
        return kept


def _class_of(codes: list[int]) -> str:
    """A regex character class of `codes` (ascending), as ranges."""
    spans: list[list[int]] = []
    for code in codes:
        if spans and spans[-1][1] == code - 1:
            spans[-1][1] = code
        else:
            spans.append([code, code])
    return "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in spans) + "]"


@cache
def _bmp_marks() -> re.Pattern[str]:
    """The BMP's combining marks as one class, which `re` tests by table lookup (four times
    faster than `translate` per character on a 20,000-character page). Beyond the BMP a
    class of ranges is tested range by range, so a text with such characters (emoji, rare
    scripts) takes the translate table instead. Built on first use (about 25 ms)."""
    return re.compile(_class_of([c for c in range(0x10000) if unicodedata.combining(chr(c))]))


_UNMARKED = _Unmarked()
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
