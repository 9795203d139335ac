"""Which page of a document a span of its whole text stands on (docs/product.md, "Citing a
passage").

A PDF's evidence is one text, its pages one after the other, and each page is a span of
it: `start` and `end` are code point offsets into the whole text (end exclusive), in page
order, a page without a text layer (a scan) being empty (`start == end`). Between two
pages' spans there may be a separator that belongs to neither. A citation names the page
where its span starts, so that a reader opening the document at that page finds the first
words there: the first page whose text the span touches, never an empty page.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Protocol, TypeVar
from urllib.parse import urldefrag

# RFC 3778 registers application/pdf and its fragment identifiers (updated by RFC 8118);
# Web Annotation's FragmentSelector names the specification a value conforms to by this URI.
PDF_FRAGMENT_SPEC = "http://tools.ietf.org/rfc/rfc3778"


class PageLike(Protocol):
    """A page of a document's whole text (`contract.documents.DocumentPage` is one)."""

    @property
    def number(self) -> int: ...  # 1-based, the page's place in the file
    @property
    def label(self) -> str | None: ...  # the page label the document declares ("iv", "A-3")
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def has_text(self) -> bool: ...


P = TypeVar("P", bound=PageLike)


def _end(page: PageLike) -> int:
    return page.end


def page_of(pages: Sequence[P], start: int, end: int) -> P | None:
    """The page where the span [start, end) starts: the first page whose text it touches
    (a span of no characters touches the character at `start`); when it touches none (it
    lies in a separator, or past the last text), the last page with text that begins at
    or before `start`, else the first page. None only without pages."""
    if not pages:
        return None
    stop = max(end, start + 1)
    i = bisect_right(pages, start, key=_end)  # the first page ending after `start`
    while i < len(pages) and pages[i].start < stop:
        if pages[i].start < pages[i].end:
            return pages[i]
        i += 1
    before = [p for p in pages[:i] if p.start < p.end and p.start <= start]
    return before[-1] if before else pages[0]


def pages_in(pages: Sequence[P], start: int, end: int, total: int) -> list[P]:
    """The pages a window [start, end) of a text `total` long covers, in order: those whose
    text it overlaps, and the empty pages that stand inside it. An empty page at the
    window's end belongs to the next window, or to this one when it is the last, so windows
    read in turn name every page exactly once."""
    last = end >= total

    def covered(p: P) -> bool:
        if p.start < p.end:
            return p.start < end and p.end > start
        return start <= p.start < end or (last and p.start == end)

    first = bisect_right(pages, start - 1, key=_end)  # pages ending before `start` are out
    held: list[P] = []
    for p in pages[first:]:
        if p.start > end:
            break
        if covered(p):
            held.append(p)
    return held


def page_fragment(page: PageLike) -> str:
    """The RFC 8118 fragment that opens a PDF at this page: `page=N`, N counted from 1 in
    file order (never the page's label, which viewers do not resolve)."""
    return f"page={page.number}"


def page_url(source_url: str, page: PageLike) -> str:
    """`source_url#page=N`, any fragment of the source URL replaced."""
    base, _ = urldefrag(source_url)
    return f"{base}#{page_fragment(page)}"
