"""Reading evidence back: one revision exactly as stored, or a page of a workspace's list."""

from __future__ import annotations

import json
from collections.abc import Sequence

import anyio

from sosoapi.contract.documents import AnyResult, DocumentResult
from sosoapi.contract.errors import invalid_input
from sosoapi.contract.models import (
    WINDOW_MAX,
    Citation,
    Evidence,
    EvidenceGetInput,
    EvidenceGetOutput,
    EvidenceItem,
    EvidenceListInput,
    EvidenceListOutput,
    Provenance,
    Segment,
    WindowPage,
)
from sosoapi.extract.limits import cut_at_paragraph_end
from sosoapi.extract.passages import cue_spans
from sosoapi.research.evidence.page_spans import PageLike, pages_in
from sosoapi.research.evidence.scope import evidence_not_found, stored_revision
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.paging import read_page
from sosoapi.research.ports import EvidenceRepo

CUES_PER_WINDOW = 1_000  # the contract's bound on one answer's segments


def window(
    text: str, segments: list[Segment], offset: int, length: int = WINDOW_MAX
) -> tuple[int, list[Segment]]:
    """Where a window of at most `length` code points from `offset` ends, and the caption
    cues it holds.

    The window stops where a reader would (`cut_at_paragraph_end`: a paragraph end, then a
    sentence, then a word), so windows read in turn (each from the last one's end) join to
    the whole text exactly. A caption window also ends after its thousandth cue, and holds
    every cue that overlaps it.
    """
    rest = text[offset : offset + length + 1]
    cut, _ = cut_at_paragraph_end(rest, length)
    end = offset + (len(cut) or min(length, len(rest)))
    if not segments:
        return end, []
    spans = cue_spans(text, [(s.text, s.start_ms, s.end_ms) for s in segments])
    held = [i for i, c in enumerate(spans) if c.end > offset and c.start < end]
    if len(held) > CUES_PER_WINDOW:
        held = held[:CUES_PER_WINDOW]
        end = spans[held[-1]].end
    return end, [segments[i] for i in held]


def window_pages(
    pages: Sequence[PageLike], offset: int, end: int, total: int
) -> list[WindowPage] | None:
    """The pages of a PDF that the window [offset, end) covers (`page_spans.pages_in`);
    None for evidence without pages."""
    if not pages:
        return None
    return [
        WindowPage(
            number=p.number, label=p.label or None, start=p.start, end=p.end, has_text=p.has_text
        )
        for p in pages_in(pages, offset, end, total)
    ]


def evidence_provenance(content: AnyResult) -> Provenance:
    """evidence_get's provenance: a document's in the shape every evidence shares (no
    caption format; its bytes' SHA-256 is on its receipt, its digest on the evidence)."""
    if not isinstance(content, DocumentResult):
        return content.provenance
    kept = content.provenance
    return Provenance(
        source_url=kept.source_url,
        retrieved_at=kept.retrieved_at,
        mime_type=kept.mime_type,
        parser_version=kept.parser_version,
        content_kind=kept.content_kind,
        caption_format=None,
        language=kept.language,
        language_source=kept.language_source,
    )


class EvidenceReader:
    def __init__(self, evidence: EvidenceRepo) -> None:
        self.evidence = evidence

    async def get(self, call: Call[EvidenceGetInput]) -> Outcome:
        evidence_id = str(call.input.evidence_id)
        revision = call.input.revision
        record = await anyio.to_thread.run_sync(
            self.evidence.revision, call.workspace_id, evidence_id, revision
        )
        if record is None:
            raise evidence_not_found(evidence_id, call.workspace_id, revision)
        whole = stored_revision(record)
        stored = whole.content
        offset = call.input.offset
        if offset > len(whole.text):
            raise invalid_input(
                f"`offset` {offset} is past the end of this revision's text, which is "
                f"{len(whole.text)} characters long; pass an offset from 0 to "
                f"{len(whole.text)} (a previous answer's `next_offset`).",
                "offset",
            )
        end, segments = window(whole.text, whole.segments, offset, call.input.length)
        return Outcome(
            EvidenceGetOutput(
                evidence=Evidence(
                    id=record.evidence_id,
                    workspace_id=record.workspace_id,
                    revision=record.revision,
                    latest_revision=record.latest_revision,
                    kind=stored.kind,
                    text=whole.text[offset:end],
                    title=stored.title,
                    description=stored.description,
                    segments=segments,
                    provenance=evidence_provenance(stored),
                    content_digest=record.digest,
                    created_at=record.created_at,
                    offset=offset,
                    total_length=len(whole.text),
                    next_offset=end if end < len(whole.text) else None,
                    citation=(
                        Citation.model_validate_json(record.citation) if record.citation else None
                    ),
                    pages=window_pages(whole.pages, offset, end, len(whole.text)),
                )
            )
        )

    async def list_page(self, call: Call[EvidenceListInput]) -> Outcome:
        rows, next_cursor = await read_page(
            call, self.evidence.list_page, kind=call.input.kind, language=call.input.language
        )
        items = [
            EvidenceItem(
                id=r.id,
                kind=r.kind,
                source_url=r.source_url,
                language=r.language,
                title=json.loads(r.content).get("title"),
                latest_revision=r.latest_revision,
                created_at=r.created_at,
                updated_at=r.updated_at,
            )
            for r in rows
        ]
        return Outcome(EvidenceListOutput(items=items, next_cursor=next_cursor))
