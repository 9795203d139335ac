"""A result being assembled by a source reader, finished into a contract result.

The reader records every condition it meets; `finish()` ranks them (`ranking.py`) into
one status, one reason and the warnings, and drops what that status may not carry; the
whole text and the cause travel beside the result (`finished.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sosoapi.contract.documents import DOCUMENT_KIND
from sosoapi.contract.guidance import cause_of
from sosoapi.contract.models import Provenance, RetrieveResult, Segment
from sosoapi.contract.vocabulary import Reason, Status
from sosoapi.research.documents.result import DocumentDraft
from sosoapi.research.evidence.passages import CutPassages
from sosoapi.research.retrieval.captures import Packing
from sosoapi.research.retrieval.finished import AnyFinished, Finished, finished
from sosoapi.research.retrieval.ranking import Condition, decide, retry_after, status_of


@dataclass
class Draft:
    """A result being assembled by a source reader; `finish()` makes it a contract model
    (with the whole text and the cause beside it)."""

    kind: str
    retrieved_at: datetime | None = None
    source_url: str | None = None
    mime_type: str | None = None
    text: str = ""
    title: str | None = None
    description: str | None = None
    segments: list[Segment] = field(default_factory=list)
    content_kind: str = "none"
    caption_format: str | None = None
    language: str | None = None
    conditions: list[Condition] = field(default_factory=list)
    retry_after_seconds: int | None = None
    whole_text: str | None = None  # the evidence's whole text when `text` was cut from it
    whole_segments: list[Segment] | None = None
    cause: str | None = None  # the first fetch failure's cause (egress FetchOutcome.cause)
    citation: dict[str, Any] = field(default_factory=dict)  # kept beside the result
    passages: CutPassages | None = None  # cut in the parse's trip (parsing.py)
    packing: Packing | None = None  # the answer's capture body, packed in that trip too

    def add(self, reason: Reason, *, usable: bool = False) -> Draft:
        status = status_of(reason, usable=usable, captions=self.kind == "published_captions")
        self.conditions.append(Condition(status, reason))
        return self

    def finish(self, settled_at: datetime) -> Finished[RetrieveResult]:
        status, reason, warnings = decide(self.conditions)
        keep_content = status in (Status.READY, Status.PARTIAL, Status.EMPTY)
        usable = status in (Status.READY, Status.PARTIAL)
        result = RetrieveResult(
            kind=self.kind,
            status=status,
            text=self.text if status in (Status.READY, Status.PARTIAL) else "",
            title=self.title if keep_content else None,
            description=self.description if keep_content else None,
            segments=self.segments if status in (Status.READY, Status.PARTIAL) else [],
            provenance=Provenance(
                source_url=self.source_url,
                retrieved_at=self.retrieved_at or settled_at,
                mime_type=self.mime_type,
                content_kind=self.content_kind if keep_content else "none",
                caption_format=self.caption_format,
                language=self.language,
                language_source="publisher_declared" if self.language else "unknown",
            ),
            reason=reason,
            warnings=warnings,
            retry_after_seconds=retry_after(status, self.retry_after_seconds),
        )
        cause = cause_of(reason, self.cause)
        if not usable:
            return finished(result, cause)
        return finished(result, cause, self.whole_text, self.whole_segments)


def unread(kind: str, reason: Reason, now: datetime, cause: str | None = None) -> AnyFinished:
    """The result of a read of `kind` that read nothing: cancelled, failed, not stored."""
    if kind == DOCUMENT_KIND:
        return DocumentDraft(cause=cause).add(reason).finish(now)
    draft = Draft(kind=kind).add(reason)
    draft.cause = cause
    return draft.finish(now)
