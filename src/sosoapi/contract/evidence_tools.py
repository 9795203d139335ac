"""Pydantic models of the read-only evidence tools: search, quote check and diff."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from sosoapi.contract.models import (
    TEXT_CEILING,
    Cursor,
    EvidenceKind,
    PageLabel,
    PageNumber,
    Revision,
    TextOffset,
    UUIDStr,
    Wire,
)
from sosoapi.contract.numbers import MAX_SAFE_INT

# Offsets reach into an evidence's whole text (SOSOAPI_EVIDENCE_TEXT_MAX, at most this).
Offset = TextOffset
Millis = Annotated[int, Field(ge=0, le=MAX_SAFE_INT)]
Index = Annotated[int, Field(ge=0, le=19_999)]  # a cue of the whole caption file
Title = Annotated[str, Field(min_length=1, max_length=200)]
Verdict = Literal["exact", "normalized", "approximate", "absent"]


# --- anchors: where a span stands, in forms that travel outside this service ------------


class TextQuoteSelector(Wire):
    """W3C Web Annotation: the span's text and up to 32 characters either side."""

    type: Literal["TextQuoteSelector"] = "TextQuoteSelector"
    exact: Annotated[str, Field(max_length=TEXT_CEILING)]
    prefix: Annotated[str, Field(max_length=32)]
    suffix: Annotated[str, Field(max_length=32)]


class TextPositionSelector(Wire):
    """W3C Web Annotation: code point offsets into the revision's whole text."""

    type: Literal["TextPositionSelector"] = "TextPositionSelector"
    start: Offset
    end: Offset


class FragmentSelector(Wire):
    """W3C Web Annotation: the PDF page where the span starts, as an RFC 8118 fragment
    (`page=N`, N counted from 1 in file order); the specification is named by RFC 3778's
    URI, as Web Annotation's table of fragment forms gives it."""

    type: Literal["FragmentSelector"] = "FragmentSelector"
    conformsTo: Literal["http://tools.ietf.org/rfc/rfc3778"] = "http://tools.ietf.org/rfc/rfc3778"
    value: Annotated[str, Field(pattern=r"^page=[1-9][0-9]*$", max_length=21)]


class Anchor(Wire):
    # a PDF's anchors add the page's FragmentSelector to the pair
    selector: (
        tuple[TextQuoteSelector, TextPositionSelector]
        | tuple[TextQuoteSelector, TextPositionSelector, FragmentSelector]
    )
    text_fragment_url: str | None  # None without a source URL, and for a PDF
    page_url: str | None = None  # a PDF's `source_url#page=N`; None for other evidence


class PageRef(Wire):
    """The page of a PDF where a span starts, beside its anchor: the page's number in file
    order (1-based, as `page=N` gives it) and the label the document prints on it."""

    number: PageNumber
    label: PageLabel | None


# --- sosoapi_research_evidence_search ---------------------------------------------------


class SearchInput(Wire):
    workspace_id: UUIDStr
    query: Annotated[str, Field(min_length=1, max_length=500)]
    corpus_id: UUIDStr | None = None
    corpus_revision: Revision | None = None
    kind: EvidenceKind | None = None
    limit: Annotated[int, Field(ge=1, le=50)] = 10
    cursor: Cursor | None = None


class Snippet(Wire):
    text: Annotated[str, Field(min_length=1, max_length=20_000)]
    start: Offset
    end: Offset
    start_ms: Millis | None
    end_ms: Millis | None
    anchor: Anchor
    field: Literal["text", "description"] = "text"  # which field the offsets are into
    page: PageRef | None = None  # a PDF's page where the snippet starts


class SearchResult(Wire):
    evidence_id: UUIDStr
    revision: Revision
    kind: EvidenceKind
    title: Title | None
    source_url: str | None
    score: Annotated[float, Field(ge=0)]
    snippets: Annotated[list[Snippet], Field(max_length=3)]


class SearchOutput(Wire):
    results: Annotated[list[SearchResult], Field(max_length=50)]
    next_cursor: Cursor | None


# --- sosoapi_research_evidence_quote ----------------------------------------------------


class QuoteInput(Wire):
    workspace_id: UUIDStr
    evidence_id: UUIDStr | None = None
    revision: Revision | None = None
    corpus_id: UUIDStr | None = None
    corpus_revision: Revision | None = None
    quote: Annotated[str, Field(min_length=1, max_length=2_000)]


class QuoteDifference(Wire):
    """A run of words that differs: the quote's words, the source's at [start, end)."""

    quote: Annotated[str, Field(max_length=2_000)]
    text: Annotated[str, Field(max_length=20_000)]
    start: Offset
    end: Offset


class QuoteMatch(Wire):
    evidence_id: UUIDStr
    revision: Revision
    start: Offset
    end: Offset
    text: Annotated[str, Field(max_length=20_000)]
    similarity: Annotated[float, Field(ge=0, le=1)]
    segment_index: Index | None
    start_ms: Millis | None
    end_ms: Millis | None
    anchor: Anchor
    page: PageRef | None = None  # a PDF's page where the passage starts
    differences: Annotated[list[QuoteDifference], Field(max_length=50, default_factory=list)]
    # the speaker labels of the cues the passage touches (ignored when matching)
    speakers: Annotated[
        list[Annotated[str, Field(max_length=200)]], Field(max_length=1_000, default_factory=list)
    ]


class QuoteOutput(Wire):
    verdict: Verdict
    matches: Annotated[list[QuoteMatch], Field(max_length=50)]
    closest: QuoteMatch | None
    found_elsewhere: Annotated[list[QuoteMatch], Field(max_length=50)]


# --- sosoapi_research_evidence_diff -----------------------------------------------------


class DiffInput(Wire):
    workspace_id: UUIDStr
    evidence_id: UUIDStr
    from_revision: Revision
    to_revision: Revision | None = None


class TextChange(Wire):
    op: Literal["insert", "delete", "replace"]
    from_start: Offset
    from_end: Offset
    to_start: Offset
    to_end: Offset
    from_text: Annotated[str, Field(max_length=TEXT_CEILING)]
    to_text: Annotated[str, Field(max_length=TEXT_CEILING)]
    from_anchor: Anchor | None  # the removed span in the old revision (None: an insert)
    to_anchor: Anchor | None  # the new span in the new revision (None: a delete)
    from_page: PageRef | None = None  # a PDF's page where each side's span starts
    to_page: PageRef | None = None


class DiffStats(Wire):
    chars_added: Offset
    chars_removed: Offset
    unchanged_ratio: Annotated[float, Field(ge=0, le=1)]


class SegmentChange(Wire):
    op: Literal["added", "removed", "retimed"]
    from_index: Index | None
    to_index: Index | None
    text: Annotated[str, Field(min_length=1, max_length=20_000)]
    from_start_ms: Millis | None
    from_end_ms: Millis | None
    to_start_ms: Millis | None
    to_end_ms: Millis | None


class FieldChange(Wire):
    from_text: str | None
    to_text: str | None


class DiffOutput(Wire):
    evidence_id: UUIDStr
    kind: EvidenceKind
    from_revision: Revision
    to_revision: Revision
    changes: list[TextChange]
    stats: DiffStats
    segment_changes: Annotated[list[SegmentChange], Field(max_length=40_000)] | None
    title_change: FieldChange | None
    description_change: FieldChange | None
