"""Media types: the seven the contract names, normalised from a Content-Type header."""

from __future__ import annotations

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = HTML_TYPES | {"text/plain"}
CAPTION_TYPES = frozenset({"text/vtt", "application/x-subrip", "application/srt", "text/srt"})
CONTRACT_TYPES = TEXT_TYPES | CAPTION_TYPES


def parse_content_type(header: str | None) -> tuple[str | None, str | None]:
    """Return (lower-case media type without parameters, charset parameter or None)."""
    if not header:
        return None, None
    parts = header.split(";")
    media = parts[0].strip().lower() or None
    charset = None
    for param in parts[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return media, charset


def contract_media_type(media: str | None) -> str | None:
    """The media type as the contract's `mime_type` field: one of the seven, else None."""
    return media if media in CONTRACT_TYPES else None
