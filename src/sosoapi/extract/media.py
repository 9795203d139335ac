"""Media types: the seven the contract names (egress parses the Content-Type once:
`egress.types.ResponseHeaders`)."""

from __future__ import annotations

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = HTML_TYPES | {"text/plain"}
CAPTION_TYPES = frozenset({"text/vtt", "application/x-subrip", "application/srt", "text/srt"})
CONTRACT_TYPES = TEXT_TYPES | CAPTION_TYPES


def contract_media_type(media: str | None) -> str | None:
    """The media type as the contract's `mime_type` field: one of the seven, else None."""
    return media if media in CONTRACT_TYPES else None
