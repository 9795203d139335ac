"""Stored page results as a retrieval settles them, for tests and benches that write
evidence or receipts directly."""

from __future__ import annotations

from datetime import datetime

from sosoapi.contract.models import Provenance, RetrieveResult


def page_result(
    text: str,
    *,
    source_url: str,
    retrieved_at: datetime | str,
    title: str | None = None,
    language: str | None = None,
    mime_type: str | None = None,
    status: str = "ready",
    reason: str | None = None,
) -> RetrieveResult:
    """A `url_text` result: document text when there is text, a declared language when
    one is given."""
    return RetrieveResult(
        kind="url_text",
        status=status,
        text=text,
        title=title,
        description=None,
        segments=[],
        provenance=Provenance(
            source_url=source_url,
            retrieved_at=retrieved_at,
            mime_type=mime_type,
            content_kind="document_text" if text else "none",
            caption_format=None,
            language=language,
            language_source="publisher_declared" if language else "unknown",
        ),
        reason=reason,
        warnings=[],
        retry_after_seconds=None,
    )
