"""Pydantic models of the contract's inputs and outputs.

Outputs are built from these models and dumped with `wire()`, so every required key is
present (nulls included), nothing extra leaks, and timestamps are UTC with a `Z`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

Kind = Literal["url_text", "published_captions"]
State = Literal["pending", "running", "completed", "cancelled", "unconfirmed", "expired"]
Status = Literal[
    "ready",
    "partial",
    "blocked",
    "unsupported",
    "empty",
    "rate_limited",
    "unavailable",
    "cancelled",
]
Reason = Literal[
    "unsafe_url",
    "unsupported_source",
    "unsupported_media",
    "unsupported_content",
    "access_denied",
    "login_required",
    "no_text",
    "metadata_only",
    "no_captions",
    "invalid_captions",
    "not_found",
    "rate_limited",
    "response_too_large",
    "text_limited",
    "nodes_limited",
    "cues_limited",
    "invalid_cues",
    "language_mismatch",
    "source_partial",
    "timeout",
    "cancelled",
    "egress_unavailable",
    "unavailable",
]
MimeType = Literal[
    "text/html",
    "application/xhtml+xml",
    "text/plain",
    "text/vtt",
    "application/x-subrip",
    "application/srt",
    "text/srt",
]
ContentKind = Literal["document_text", "metadata_only", "published_caption_file", "none"]
CaptionFormat = Literal["webvtt", "subrip"]
LanguageSource = Literal["publisher_declared", "unknown"]
Coverage = Literal["supplied_set", "bounded_sample", "partial"]

PARSER_VERSION = "research-public-retrieval/v1"
METHOD_VERSION = "research-corpus/v1"
MAX_SAFE_INT = 2**53 - 1


def format_timestamp(value: datetime) -> str:
    """UTC `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`; naive values (SQLite) are taken as UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    text = value.astimezone(UTC).isoformat()
    return text.removesuffix("+00:00") + "Z"


def utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


Timestamp = Annotated[datetime, PlainSerializer(format_timestamp, return_type=str)]
Revision = Annotated[int, Field(gt=0, le=MAX_SAFE_INT)]


class Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def wire(self) -> dict[str, Any]:
        """The JSON value that crosses a surface."""
        return self.model_dump(mode="json")


def _uuid_str(value: UUID) -> str:
    return str(value)


UUIDStr = Annotated[UUID, PlainSerializer(_uuid_str, return_type=str)]


# --- sosoapi_research_evidence_retrieve -------------------------------------------------


class RetrieveInput(Wire):
    url: str
    kind: Kind
    language: str | None = None
    workspace_id: UUIDStr
    mutation_id: UUIDStr


class Segment(Wire):
    start_ms: Annotated[int, Field(ge=0, le=MAX_SAFE_INT)]
    end_ms: Annotated[int, Field(gt=0, le=MAX_SAFE_INT)]
    text: Annotated[str, Field(min_length=1, max_length=20_000)]


class Provenance(Wire):
    source_url: str | None
    retrieved_at: Timestamp
    mime_type: MimeType | None
    parser_version: Literal["research-public-retrieval/v1"] = PARSER_VERSION
    content_kind: ContentKind
    caption_format: CaptionFormat | None
    language: str | None
    language_source: LanguageSource
    platform_native_verified: Literal[False] = False


class RetrieveResult(Wire):
    kind: Kind
    status: Status
    text: Annotated[str, Field(max_length=20_000)]
    title: Annotated[str, Field(min_length=1, max_length=200)] | None
    description: Annotated[str, Field(min_length=1, max_length=2_000)] | None
    segments: Annotated[list[Segment], Field(max_length=1_000)]
    provenance: Provenance
    reason: Reason | None
    warnings: Annotated[list[Reason], Field(max_length=10)]
    retry_after_seconds: Annotated[int, Field(ge=1, le=86_400)] | None


class EvidenceRef(Wire):
    evidence_id: UUIDStr
    revision: Revision


class Retrieval(Wire):
    id: UUIDStr
    workspace_id: UUIDStr
    mutation_id: UUIDStr
    state: State
    kind: Kind | None
    created_at: Timestamp
    settled_at: Timestamp | None
    valid_until: Timestamp
    result: RetrieveResult | None
    evidence: EvidenceRef | None


class RetrieveOutput(Wire):
    retrieval: Retrieval


# --- sosoapi_research_corpora_get -------------------------------------------------------


class CorporaGetInput(Wire):
    workspace_id: UUIDStr
    id: UUIDStr
    revision: Revision | None = None


class Snapshot(Wire):
    id: UUIDStr
    workspace_id: UUIDStr
    project_id: UUIDStr
    project_revision: Revision
    evidence: Annotated[list[EvidenceRef], Field(max_length=500)]
    sealed_at: Timestamp
    coverage: Coverage
    missing_sources: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=100)]], Field(max_length=20)
    ]
    method_version: Literal["research-corpus/v1"] = METHOD_VERSION


class CorporaGetOutput(Wire):
    snapshot: Snapshot
