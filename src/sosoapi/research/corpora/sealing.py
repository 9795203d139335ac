"""Sealing projects into immutable corpus snapshots, and reading them back
(docs/product.md, "Corpora").

Sampling rule (`research-corpus/v1`): when a project supplies more evidence than the bound
(500, or a smaller `max_items`), the evidence kept is the `bound` references with the
smallest SHA-256 of "<corpus_id>:<evidence_id>", listed in the project's order. The same
corpus therefore keeps the same sample across re-seals while its sources do not change,
and the selection depends on nothing but ids.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

import anyio

from sosoapi.contract.errors import invalid_input, not_found
from sosoapi.contract.models import EvidenceRef, PageInput
from sosoapi.contract.projects import (
    CorporaGetInput,
    CorporaGetOutput,
    CorporaListOutput,
    CorporaSealInput,
    CorpusItem,
    SealOutput,
    Snapshot,
)
from sosoapi.research.corpora.projects import project_not_found
from sosoapi.research.mutations import new_mutation, write_once
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.paging import read_page
from sosoapi.research.ports import Transaction, UnitOfWork

MAX_NOTES = 20


def sample(corpus_id: str, evidence_ids: Sequence[str], bound: int) -> list[str]:
    """The documented deterministic sample: `bound` smallest hashes, in supplied order."""
    if len(evidence_ids) <= bound:
        return list(evidence_ids)
    rank = {e: hashlib.sha256(f"{corpus_id}:{e}".encode()).hexdigest() for e in evidence_ids}
    kept = set(sorted(evidence_ids, key=rank.__getitem__)[:bound])
    return [e for e in evidence_ids if e in kept]


def coverage(supplied: int, bound: int, notes: Sequence[str]) -> str:
    """`partial` when sources are missing (wins over sampling), else sample or whole set."""
    if notes:
        return "partial"
    return "bounded_sample" if supplied > bound else "supplied_set"


def corpus_not_found(corpus_id: str, workspace_id: str, revision: int | None = None) -> Exception:
    which = f"revision {revision} of corpus {corpus_id}" if revision else f"corpus {corpus_id}"
    return not_found(
        f"{which} was not found in workspace {workspace_id}; list corpora with "
        "`sosoapi_research_corpora_list`."
    )


class CorpusService:
    def __init__(self, uow: UnitOfWork, clock: Callable[[], datetime]) -> None:
        self.uow = uow
        self.clock = clock

    async def seal(self, call: Call[CorporaSealInput]) -> Outcome:
        workspace_id = call.workspace_id
        project_id = str(call.input.project_id)
        reseal = str(call.input.corpus_id) if call.input.corpus_id else None
        bound = call.input.max_items
        now = self.clock()
        key = new_mutation("sosoapi_research_corpora_seal", call.arguments, call.token_id, now)

        def change(tx: Transaction) -> SealOutput:
            project = tx.projects.lock(workspace_id, project_id)
            if project is None:
                raise project_not_found(project_id, workspace_id)
            corpus_id = reseal or str(uuid.uuid4())
            if reseal:
                owner = tx.corpora.owner_project(workspace_id, corpus_id)
                if owner is None:
                    raise corpus_not_found(corpus_id, workspace_id)
                if owner != project_id:
                    raise invalid_input(
                        f"corpus {corpus_id} was sealed from project {owner}, not {project_id}; "
                        "re-seal it from its own project or omit corpus_id for a new corpus.",
                        "corpus_id",
                    )
            supplied = [s.evidence_id for s in project.sources if s.evidence_id]
            notes = [s.note for s in project.sources if s.note]
            kept = sample(corpus_id, supplied, bound)
            revisions = tx.projects.latest_revisions(kept)
            snapshot = Snapshot(
                id=corpus_id,
                workspace_id=workspace_id,
                project_id=project_id,
                project_revision=project.revision,
                evidence=[EvidenceRef(evidence_id=e, revision=revisions[e]) for e in kept],
                sealed_at=now,
                coverage=coverage(len(supplied), bound, notes),
                missing_sources=notes[:MAX_NOTES],
            )
            revision = tx.corpora.seal(
                workspace_id, corpus_id, project_id, snapshot.model_dump_json(), now
            )
            return SealOutput(snapshot=snapshot, revision=revision)

        output = await write_once(self.uow, key, SealOutput, change)
        return Outcome(output, corpus_revision=output.revision)

    async def get(self, call: Call[CorporaGetInput]) -> Outcome:
        workspace_id, corpus_id = call.workspace_id, str(call.input.id)
        revision = call.input.revision
        row = await anyio.to_thread.run_sync(
            self.uow.corpora.get, workspace_id, corpus_id, revision
        )
        if row is None:
            raise corpus_not_found(corpus_id, workspace_id, revision)
        snapshot = Snapshot.model_validate_json(row.snapshot)
        return Outcome(CorporaGetOutput(snapshot=snapshot), corpus_revision=row.revision)

    async def list_page(self, call: Call[PageInput]) -> Outcome:
        rows, next_cursor = await read_page(call, self.uow.corpora.list_page)
        items = []
        for row in rows:
            snapshot = Snapshot.model_validate_json(row.snapshot)
            items.append(
                CorpusItem(
                    id=row.id,
                    project_id=row.project_id,
                    latest_revision=row.latest_revision,
                    project_revision=snapshot.project_revision,
                    coverage=snapshot.coverage,
                    evidence_count=len(snapshot.evidence),
                    sealed_at=row.sealed_at,
                )
            )
        return Outcome(CorporaListOutput(items=items, next_cursor=next_cursor))
