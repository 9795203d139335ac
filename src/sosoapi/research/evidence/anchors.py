"""Anchors that travel: a span of a revision's whole text as W3C Web Annotation selectors
and as a WICG text-fragment URL (docs/product.md, "Citing a passage").

The `TextQuoteSelector` re-finds the span by its words and 32 characters of context either
side; the `TextPositionSelector` by code point offsets into the whole text. The text
fragment (`#:~:text=`) lets a browser open the source at the passage: a long span is
given by its first and last words, and words of context are added when the span's text
occurs more than once in the revision, so the browser lands on this occurrence.

In a PDF (evidence with pages) the anchor also names the page where the span starts: a
`FragmentSelector` with RFC 8118's `page=N` and `page_url`, the source URL with that
fragment, which PDF viewers open at the page. A PDF has no text fragment URL: PDF
viewers follow their own fragments (`page=`, `search=`), not `#:~:text=`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from urllib.parse import quote, urldefrag

from sosoapi.contract.evidence_tools import (
    Anchor,
    FragmentSelector,
    PageRef,
    TextPositionSelector,
    TextQuoteSelector,
)
from sosoapi.research.evidence.page_spans import (
    PDF_FRAGMENT_SPEC,
    PageLike,
    page_fragment,
    page_of,
    page_url,
)

CONTEXT = 32  # characters of prefix and suffix in a TextQuoteSelector
_EDGE_WORDS = 5  # words of a long span's start and end in a text fragment
_CONTEXT_WORDS = 3  # words of prefix or suffix in a text fragment
_SHORT = 80  # a span up to this long is given whole in a text fragment
_WORD = re.compile(r"\S+")
# Text Fragments reserve `-`, `,` and `&` inside a directive: those are percent-encoded too
# (`quote` leaves `-` alone, as an unreserved URL character).
_SAFE = ""


def anchor(
    text: str, start: int, end: int, source_url: str | None, pages: Sequence[PageLike] = ()
) -> Anchor:
    """The selectors and links of `text[start:end]`; `pages` are a PDF's (empty for other
    evidence)."""
    exact = text[start:end]
    quoted = TextQuoteSelector(
        exact=exact,
        prefix=text[max(0, start - CONTEXT) : start],
        suffix=text[end : end + CONTEXT],
    )
    position = TextPositionSelector(start=start, end=end)
    page = page_of(pages, start, end)
    if page is None:
        link = fragment_url(source_url, text, start, end) if source_url else None
        return Anchor(selector=(quoted, position), text_fragment_url=link, page_url=None)
    fragment = FragmentSelector(conformsTo=PDF_FRAGMENT_SPEC, value=page_fragment(page))
    return Anchor(
        selector=(quoted, position, fragment),
        text_fragment_url=None,
        page_url=page_url(source_url, page) if source_url else None,
    )


def page_ref(pages: Sequence[PageLike], start: int, end: int) -> PageRef | None:
    """The page where `text[start:end]` starts, said beside its anchor; None without pages."""
    page = page_of(pages, start, end)
    return PageRef(number=page.number, label=page.label or None) if page else None


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
