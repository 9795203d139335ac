"""The contract's size bounds and the one place that cuts text to them."""

from __future__ import annotations

import re

TEXT_MAX = 20_000
TITLE_MAX = 200
DESCRIPTION_MAX = 2_000
SEGMENTS_MAX = 1_000
SEGMENT_TEXT_MAX = 20_000
ELLIPSIS = "…"

_SENTENCE_END = re.compile(r"[.!?。！？](?=\s)")


def cut_text(text: str, limit: int) -> tuple[str, bool]:
    """Cut `text` to at most `limit` code points at the cleanest boundary found.

    Prefers a paragraph break, then a line break, then a sentence end, then a word
    boundary in the last fifth of the window; falls back to a hard cut. Returns the text
    and whether it was cut.
    """
    if len(text) <= limit:
        return text, False
    window = text[:limit]
    floor = int(limit * 0.8)
    for sep in ("\n\n", "\n"):
        at = window.rfind(sep)
        if at >= floor:
            return window[:at].rstrip(), True
    ends = [m.end() for m in _SENTENCE_END.finditer(window, floor)]
    if ends:
        return window[: ends[-1]].rstrip(), True
    at = window.rfind(" ")
    if at >= floor:
        return window[:at].rstrip(), True
    return window, True


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
