"""Everything a page read takes from its body, in one call: what runs in one trip to the
parsing pool (research/retrieval/parsing.py), the body decoded once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sosoapi.extract.html import decode_body, document_of
from sosoapi.extract.types import TextDocument


@dataclass(frozen=True, slots=True)
class PageRead:
    """The document (None when the body does not decode) and the citation fields the
    page declares (none for a wall: it is not the source's page)."""

    document: TextDocument | None
    citation: dict[str, Any] = field(default_factory=dict)


def read_page(
    body: bytes,
    *,
    media_type: str | None,
    charset: str | None,
    url: str | None = None,
    **options: Any,
) -> PageRead:
    """Text, metadata, wall verdict and citation fields from one tree (`document_of` with
    its keyword `options`)."""
    decoded = decode_body(body, media_type, charset)
    if decoded is None:
        return PageRead(None)
    document = document_of(decoded, url=url, cite=True, **options)
    return PageRead(document, document.citation)
