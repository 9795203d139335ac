"""Which evidence revisions a read-only evidence tool looks at, read from repositories.

One home for "the revisions a corpus pins" and "this revision, or a clear not-found",
shared by search, quote check and diff. These are read inside the heavy-read job
(`research/heavy.py`), after its slot is reserved: a queued or refused call holds no text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sosoapi.contract.documents import AnyResult, DocumentPage, DocumentResult, result_model
from sosoapi.contract.errors import invalid_input, not_found
from sosoapi.contract.models import Segment
from sosoapi.contract.projects import Snapshot
from sosoapi.research.corpora.sealing import corpus_not_found
from sosoapi.research.heavy import ShouldStop, checkpoint
from sosoapi.research.ports import CorporaRepo, EvidenceRepo
from sosoapi.store.records import EvidenceRevisionRecord


@dataclass(frozen=True, slots=True)
class StoredRevision:
    """One evidence revision's identity, its content as stored, and its whole text and
    cues (the receipt's own when nothing was cut), and a PDF's pages (spans of that text;
    empty for other evidence): what search, quote and diff read."""

    evidence_id: str
    revision: int
    latest_revision: int
    content: AnyResult
    text: str
    segments: list[Segment]
    pages: tuple[DocumentPage, ...] = ()


def stored_revision(record: EvidenceRevisionRecord) -> StoredRevision:
    """A stored revision read back; a revision written before whole texts were kept (or
    one that fit the receipt) is whole as it is."""
    content = result_model(record.kind).model_validate_json(record.content)
    text, segments = content.text, content.segments
    if record.whole is not None:
        whole = json.loads(record.whole)
        text = whole["text"]
        segments = [Segment.model_validate(s) for s in whole["segments"]]
    pages = tuple(content.pages) if isinstance(content, DocumentResult) else ()
    return StoredRevision(
        record.evidence_id, record.revision, record.latest_revision, content, text, segments,
        pages,
    )  # fmt: skip


def evidence_not_found(evidence_id: str, workspace_id: str, revision: int | None) -> Exception:
    which = f"revision {revision} of evidence" if revision else "evidence"
    return not_found(
        f"{which} {evidence_id} was not found in workspace {workspace_id}; list evidence with "
        "`sosoapi_research_evidence_list`."
    )


def only_with(value: object, partner: object, field: str, needs: str) -> None:
    """Refuse `field` given without the argument it qualifies."""
    if value is not None and partner is None:
        raise invalid_input(
            f"`{field}` is given without `{needs}`; add `{needs}` or drop it.", field
        )


def corpus_pins(
    corpora: CorporaRepo, workspace_id: str, corpus_id: str, revision: int | None
) -> list[tuple[str, int]]:
    """The (evidence_id, revision) pairs a corpus revision (latest by default) pins."""
    row = corpora.get(workspace_id, corpus_id, revision)
    if row is None:
        raise corpus_not_found(corpus_id, workspace_id, revision)
    snapshot = Snapshot.model_validate_json(row.snapshot)
    return [(str(ref.evidence_id), ref.revision) for ref in snapshot.evidence]


def read_record(
    evidence: EvidenceRepo, workspace_id: str, evidence_id: str, revision: int | None
) -> EvidenceRevisionRecord:
    """One revision (latest by default) inside the workspace as stored, or `not_found`."""
    record = evidence.revision(workspace_id, evidence_id, revision)
    if record is None:
        raise evidence_not_found(evidence_id, workspace_id, revision)
    return record


def read_revision(
    evidence: EvidenceRepo, workspace_id: str, evidence_id: str, revision: int | None
) -> StoredRevision:
    """`read_record`, read back."""
    return stored_revision(read_record(evidence, workspace_id, evidence_id, revision))


def each_pinned(
    evidence: EvidenceRepo,
    workspace_id: str,
    pins: Iterable[tuple[str, int]],
    should_stop: ShouldStop,
) -> Iterator[EvidenceRevisionRecord]:
    """The pinned revisions in the corpus's order as stored, read one at a time as the
    caller asks for the next: a corpus of 500 revisions of 500,000 characters never sits
    in memory whole. `should_stop` is checked before each read. They are read back
    (`stored_revision`) where they are judged: in a heavy-read process when the server
    has them, so the server's thread never parses a whole text."""
    for evidence_id, revision in pins:
        checkpoint(should_stop)
        record = evidence.revision(workspace_id, evidence_id, revision)
        if record is not None:
            yield record
