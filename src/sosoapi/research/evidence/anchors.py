"""Anchors that travel: a span of a revision's whole text as W3C Web Annotation selectors
and as a WICG text-fragment URL (docs/product.md, "Citing a passage").

The `TextQuoteSelector` re-finds the span by its words and 32 characters of context either
side; the `TextPositionSelector` by code point offsets into the whole text. The text
fragment (`#:~:text=`) lets a browser open the source at the passage: a long span is
given by its first and last words, and words of context are added when the span's text
occurs more than once in the revision, so the browser lands on this occurrence.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote, urldefrag

from sosoapi.contract.evidence_tools import Anchor, TextPositionSelector, TextQuoteSelector

CONTEXT = 32  # characters of prefix and suffix in a TextQuoteSelector
_EDGE_WORDS = 5  # words of a long span's start and end in a text fragment
_CONTEXT_WORDS = 3  # words of prefix or suffix in a text fragment
_SHORT = 80  # a span up to this long is given whole in a text fragment
_WORD = re.compile(r"\S+")
# Text Fragments reserve `-`, `,` and `&` inside a directive: those are percent-encoded too
# (`quote` leaves `-` alone, as an unreserved URL character).
_SAFE = ""


def anchor(text: str, start: int, end: int, source_url: str | None) -> Anchor:
    """The selector pair and text fragment URL of `text[start:end]`."""
    exact = text[start:end]
    return Anchor(
        selector=(
            TextQuoteSelector(
                exact=exact,
                prefix=text[max(0, start - CONTEXT) : start],
                suffix=text[end : end + CONTEXT],
            ),
            TextPositionSelector(start=start, end=end),
        ),
        text_fragment_url=fragment_url(source_url, text, start, end) if source_url else None,
    )


def _encode(words: list[str]) -> str:
    return quote(" ".join(words), safe=_SAFE).replace("-", "%2D")


@lru_cache(maxsize=4)
def _flat(text: str) -> str:
    """The text with white-space runs as one space, kept for the next spans of the same
    text: a diff anchors each of its changes, and joining 20,000 characters per change
    made 400 changes cost 0.3 s."""
    return " ".join(text.split())


def fragment_url(source_url: str, text: str, start: int, end: int) -> str | None:
    """`source_url#:~:text=[prefix-,]start[,end][,-suffix]`; None for a span without words."""
    words = _WORD.findall(text[start:end])
    if not words:
        return None
    if len(text[start:end]) <= _SHORT or len(words) <= 2 * _EDGE_WORDS:
        directive = _encode(words)
    else:
        directive = f"{_encode(words[:_EDGE_WORDS])},{_encode(words[-_EDGE_WORDS:])}"
    exact = " ".join(words)
    if _flat(text).count(exact) > 1:
        before = _WORD.findall(text[max(0, start - 200) : start])[-_CONTEXT_WORDS:]
        after = _WORD.findall(text[end : end + 200])[:_CONTEXT_WORDS]
        if before:
            directive = f"{_encode(before)}-,{directive}"
        if after:
            directive = f"{directive},-{_encode(after)}"
    base, _ = urldefrag(source_url)
    return f"{base}#:~:text={directive}"
