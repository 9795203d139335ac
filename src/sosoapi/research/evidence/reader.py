"""Reading evidence back: one revision exactly as stored, or a page of a workspace's list."""

from __future__ import annotations

import json

import anyio

from sosoapi.contract.models import (
    Citation,
    Evidence,
    EvidenceGetInput,
    EvidenceGetOutput,
    EvidenceItem,
    EvidenceListInput,
    EvidenceListOutput,
    RetrieveResult,
)
from sosoapi.research.evidence.scope import evidence_not_found
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.paging import read_page
from sosoapi.research.ports import EvidenceRepo


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
        stored = RetrieveResult.model_validate_json(record.content)
        return Outcome(
            EvidenceGetOutput(
                evidence=Evidence(
                    id=record.evidence_id,
                    workspace_id=record.workspace_id,
                    revision=record.revision,
                    latest_revision=record.latest_revision,
                    kind=stored.kind,
                    text=stored.text,
                    title=stored.title,
                    description=stored.description,
                    segments=stored.segments,
                    provenance=stored.provenance,
                    content_digest=record.digest,
                    created_at=record.created_at,
                    citation=(
                        Citation.model_validate_json(record.citation) if record.citation else None
                    ),
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
