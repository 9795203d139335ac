"""Pydantic models of `sosoapi_research_document_retrieve`: a PDF read page by page.

The receipt is the seed retrieve's (`Retrieval`'s fields), its result a `DocumentResult`:
the text layer in reading order (cut to 20,000 code points in the receipt; the evidence
keeps the whole), where each page starts and ends in that whole text, the document's own
metadata, and provenance with the bytes' SHA-256 (docs/product.md, "Documents").
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field

from sosoapi.contract.document_bounds import (
    AUTHOR_MAX,
    AUTHORS_MAX,
    DATE_MAX,
    LABEL_MAX,
    PAGES_CEILING,
    SUBJECT_MAX,
)
from sosoapi.contract.models import (
    TEXT_CEILING,
    EvidenceRef,
    LanguageSource,
    RetrieveOutput,
    RetrieveResult,
    Segment,
    Timestamp,
    UUIDStr,
    Wire,
)
from sosoapi.contract.numbers import MAX_SAFE_INT
from sosoapi.contract.vocabulary import Reason, State, Status

DocumentKind = Literal["pdf_text"]
DOCUMENT_KIND: Final = "pdf_text"
PDF_MIME: Final = "application/pdf"
# The media types a response that declares itself a PDF may carry.
PDF_TYPES: Final = (PDF_MIME, "application/x-pdf")
DOCUMENT_PARSER_VERSION: Final = "research-document-retrieval/v1"
DocumentContentKind = Literal["document_text", "metadata_only", "none"]

PageNumber = Annotated[int, Field(ge=1, le=MAX_SAFE_INT)]
Offset = Annotated[int, Field(ge=0, le=TEXT_CEILING)]


class DocumentRetrieveInput(Wire):
    url: str
    language: str | None = None
    workspace_id: UUIDStr
    mutation_id: UUIDStr


class DocumentPage(Wire):
    """One page: `start`/`end` are code-point offsets into the evidence's WHOLE text (end
    exclusive); a page without a text layer (a scan) has `has_text` false and start == end."""

    number: PageNumber
    label: Annotated[str, Field(min_length=1, max_length=LABEL_MAX)] | None
    start: Offset
    end: Offset
    has_text: bool


class DocumentProvenance(Wire):
    source_url: Annotated[str, Field(max_length=2048)] | None
    retrieved_at: Timestamp
    mime_type: Literal["application/pdf"] | None
    parser_version: Literal["research-document-retrieval/v1"] = DOCUMENT_PARSER_VERSION
    content_kind: DocumentContentKind
    language: str | None  # the catalog's /Lang, as the publisher declared it; never guessed
    language_source: LanguageSource
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None


class DocumentResult(Wire):
    kind: DocumentKind = DOCUMENT_KIND
    status: Status
    reason: Reason | None
    warnings: Annotated[list[Reason], Field(max_length=10)]
    retry_after_seconds: Annotated[int, Field(ge=1, le=86_400)] | None
    text: Annotated[str, Field(max_length=20_000)]
    title: Annotated[str, Field(min_length=1, max_length=200)] | None
    authors: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=AUTHOR_MAX)]],
        Field(max_length=AUTHORS_MAX),
    ]
    date: Annotated[str, Field(min_length=1, max_length=DATE_MAX)] | None
    subject: Annotated[str, Field(min_length=1, max_length=SUBJECT_MAX)] | None
    pages: Annotated[list[DocumentPage], Field(max_length=PAGES_CEILING)]
    page_count: Annotated[int, Field(ge=0, le=MAX_SAFE_INT)]
    provenance: DocumentProvenance

    # What the evidence code reads of every kind of result (identity, passages, scope): a
    # document has no cues, and its subject is what a page's description is to search.
    @property
    def segments(self) -> list[Segment]:
        return []

    @property
    def description(self) -> str | None:
        return self.subject


class DocumentRetrieval(Wire):
    """The seed receipt's fields (`models.Retrieval`), for a document's result."""

    id: UUIDStr
    workspace_id: UUIDStr
    mutation_id: UUIDStr
    state: State
    kind: DocumentKind | None
    created_at: Timestamp
    settled_at: Timestamp | None
    valid_until: Timestamp
    result: DocumentResult | None
    evidence: EvidenceRef | None


class DocumentRetrieveOutput(Wire):
    retrieval: DocumentRetrieval


# What the receipt machinery carries for either retrieve tool (research/retrieval/).
AnyResult = RetrieveResult | DocumentResult
ReceiptOutput = RetrieveOutput | DocumentRetrieveOutput
RECEIPT_OUTPUTS = (RetrieveOutput, DocumentRetrieveOutput)


def result_model(kind: str) -> type[RetrieveResult] | type[DocumentResult]:
    """The result model a stored receipt or evidence of `kind` is read back with."""
    return DocumentResult if kind == DOCUMENT_KIND else RetrieveResult
