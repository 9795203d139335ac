"""The contract's size bounds and the one place that cuts text to them."""

from __future__ import annotations

import re

TEXT_MAX = 20_000
TITLE_MAX = 200
DESCRIPTION_MAX = 2_000
SEGMENTS_MAX = 1_000
SEGMENT_TEXT_MAX = 20_000
# A citation field's value (a name, a date, a URL) and how many authors one names.
CITED_VALUE_MAX = 500
CITED_NAMES_MAX = 50
# What an evidence revision keeps beyond the receipt's bounds: the whole text up to
# SOSOAPI_EVIDENCE_TEXT_MAX code points (default below, at most the ceiling) and up to
# CUES_WHOLE_MAX caption cues (a three-hour transcript has about 3,000).
WHOLE_TEXT_DEFAULT = 500_000
WHOLE_TEXT_CEILING = 1_000_000
CUES_WHOLE_MAX = 20_000
PAGES_MAX = 2_000  # pages of one PDF the reader reads (extract/pdf; here for a server)
ELLIPSIS = "…"

_SENTENCE_END = re.compile(r"[.!?。！？](?=\s)")


# A cut stops at the last paragraph end in the window's second half; a window whose only
# paragraph ends lie earlier (one paragraph longer than half the bound) stops at a line
# break or a sentence end in its last fifth, then at a word.
_PARAGRAPH_FLOOR = 0.5
_SENTENCE_FLOOR = 0.8


def cut_at_paragraph_end(text: str, limit: int = TEXT_MAX) -> tuple[str, bool]:
    """Cut `text` to at most `limit` code points where a reader would stop.

    The receipt's `text` (and a too-long caption segment) is cut here and only here: at
    the last paragraph end (a blank line) in the second half of the window, else a line
    break or a sentence end in its last fifth, else the last word boundary there, else a
    hard cut. Returns the text and whether it was cut (the caller reports
    `text_limited`).
    """
    if len(text) <= limit:
        return text, False
    window = text[:limit]
    if text[limit] == "\n":
        return window.rstrip(), True  # the window ends exactly where a paragraph does
    at = window.rfind("\n\n")
    if at >= int(limit * _PARAGRAPH_FLOOR):
        return window[:at].rstrip(), True
    floor = int(limit * _SENTENCE_FLOOR)
    at = window.rfind("\n")
    if at >= floor:
        return window[:at].rstrip(), True
    ends = [m.end() for m in _SENTENCE_END.finditer(window, floor)]
    if ends:
        return window[: ends[-1]].rstrip(), True
    at = window.rfind(" ")
    if at >= floor:
        return window[:at].rstrip(), True
    return window, True


def cut_twice(found: str, whole_max: int) -> tuple[str, str | None, bool]:
    """The receipt's text, the whole text (None when the same) and whether either was cut."""
    text, limited = cut_at_paragraph_end(found, TEXT_MAX)
    if not limited:
        return text, None, False
    whole, _ = cut_at_paragraph_end(found, max(whole_max, TEXT_MAX))
    return text, whole, True


def clean_optional(value: str | None, limit: int) -> str | None:
    """Collapse white space; blank becomes None; longer than `limit` ends in an ellipsis."""
    if value is None:
        return None
    value = " ".join(value.split())
    if not value:
        return None
    if len(value) > limit:
        cut = value[: limit - 1]
        space = cut.rfind(" ")
        if space >= limit // 2:
            cut = cut[:space]
        value = cut.rstrip() + ELLIPSIS
    return value
