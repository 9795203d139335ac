"""Pydantic models of the contract's inputs and outputs.

Outputs are built from these models and dumped with `wire()`, so every required key is
present (nulls included), nothing extra leaks, and timestamps are UTC with a `Z`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Final, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from sosoapi.contract.numbers import MAX_SAFE_INT
from sosoapi.contract.vocabulary import Reason, State, Status

Kind = Literal["url_text", "published_captions"]
EvidenceKind = Literal["url_text", "published_captions", "pdf_text"]  # contract/documents.py
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

PARSER_VERSION: Final = "research-public-retrieval/v1"
ParserVersion = Literal["research-public-retrieval/v1", "research-document-retrieval/v1"]
METHOD_VERSION: Final = "research-corpus/v1"
MAX_CORPUS_ITEMS = 500  # the bound of a corpus sample, and the default of `max_items`


def format_timestamp(value: datetime) -> str:
    """UTC `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`; naive values (SQLite) are taken as UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    text = value.astimezone(UTC).isoformat()
    return text.removesuffix("+00:00") + "Z"


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
    # Wider than the seed retrieve's schema by the document tool's two values: evidence_get
    # shows a PDF's provenance in this shape (its own schema admits both).
    mime_type: MimeType | Literal["application/pdf"] | None
    parser_version: ParserVersion = PARSER_VERSION
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


# --- the rest of the research loop (docs/product.md, "The tools") ------------------

Title = Annotated[str, Field(min_length=1, max_length=200)]
Note = Annotated[str, Field(min_length=1, max_length=100)]
Cursor = Annotated[str, Field(min_length=1, max_length=512)]
Limit = Annotated[int, Field(ge=1, le=200)]


WINDOW_MAX = 20_000  # code points of whole text one evidence_get returns
TEXT_CEILING = 1_000_000  # the furthest offset into an evidence's whole text
PAGES_MAX = 10_000  # pages of one document a window may name (documents.PAGES_CEILING)
PAGE_LABEL_MAX = 100  # code points of a page label (documents.LABEL_MAX)
TextOffset = Annotated[int, Field(ge=0, le=TEXT_CEILING)]


class EvidenceGetInput(Wire):
    workspace_id: UUIDStr
    evidence_id: UUIDStr
    revision: Revision | None = None
    offset: TextOffset = 0
    length: Annotated[int, Field(ge=1, le=WINDOW_MAX)] = WINDOW_MAX


CitationSource = Literal["citation_meta", "json_ld", "dublin_core", "opengraph", "link_canonical"]
CitedText = Annotated[str, Field(min_length=1, max_length=500)]


class CitedValue(Wire):
    """One citation field as the page declared it, and the tag it came from."""

    value: CitedText
    source: CitationSource
    key: Annotated[str, Field(min_length=1, max_length=100)]


class CitedNames(Wire):
    value: Annotated[list[CitedText], Field(min_length=1, max_length=50)]
    source: CitationSource
    key: Annotated[str, Field(min_length=1, max_length=100)]


class Citation(Wire):
    """What the source page declared for citing it (absent fields were not declared)."""

    authors: CitedNames | None = None
    site_name: CitedValue | None = None
    publisher: CitedValue | None = None
    published: CitedValue | None = None
    modified: CitedValue | None = None
    canonical_url: CitedValue | None = None


PageNumber = Annotated[int, Field(ge=1, le=MAX_SAFE_INT)]  # 1-based, in file order
PageLabel = Annotated[str, Field(min_length=1, max_length=PAGE_LABEL_MAX)]


class WindowPage(Wire):
    """A PDF page an `evidence_get` window covers: its number, its label, and its span of
    the whole text (code points, end exclusive; empty for a page without a text layer)."""

    number: PageNumber
    label: PageLabel | None
    start: TextOffset
    end: TextOffset
    has_text: bool


class Evidence(Wire):
    id: UUIDStr
    workspace_id: UUIDStr
    revision: Revision
    latest_revision: Revision
    kind: EvidenceKind
    text: Annotated[str, Field(max_length=WINDOW_MAX)]
    title: Annotated[str, Field(min_length=1, max_length=200)] | None
    description: Annotated[str, Field(min_length=1, max_length=2_000)] | None
    segments: Annotated[list[Segment], Field(max_length=1_000)]
    provenance: Provenance
    content_digest: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    created_at: Timestamp
    offset: TextOffset
    total_length: TextOffset
    next_offset: TextOffset | None
    citation: Citation | None = None  # None: not an HTML page, or it declared nothing
    pages: Annotated[list[WindowPage], Field(max_length=PAGES_MAX)] | None = None  # a PDF's


class EvidenceGetOutput(Wire):
    evidence: Evidence


class PageInput(Wire):
    """The input of every list tool: a workspace and where the page starts."""

    workspace_id: UUIDStr
    cursor: Cursor | None = None
    limit: Limit = 50


class EvidenceListInput(PageInput):
    kind: EvidenceKind | None = None
    language: str | None = None


class EvidenceItem(Wire):
    id: UUIDStr
    kind: EvidenceKind
    source_url: str | None
    language: str | None
    title: Annotated[str, Field(min_length=1, max_length=200)] | None
    latest_revision: Revision
    created_at: Timestamp
    updated_at: Timestamp


class EvidenceListOutput(Wire):
    items: list[EvidenceItem]
    next_cursor: Cursor | None


class UploadInput(Wire):
    workspace_id: UUIDStr
    mutation_id: UUIDStr
    path: Annotated[str, Field(min_length=1, max_length=4096)]
    kind: EvidenceKind
    language: str | None = None
