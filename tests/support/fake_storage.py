"""The whole storage port in memory: receipts, evidence, search, review rows, members.

`FakeStorage` extends the unit of work of `fake_store.py` with the repositories the
receipt, evidence, search and review use cases read and write, so those use cases run
without a database. The rules that are the store's own (leases judged by the clock,
one revision per new digest, the workspace in every lookup) are kept; ranking is not
the store's bm25 or ts_rank but a plain count of occurrences, since the use cases only
order and page what the store ranked.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from sosoapi.contract.models import RetrieveResult
from sosoapi.contract.vocabulary import OPEN_STATES, State
from sosoapi.store.records import (
    CaptureRecord,
    EvidenceListRow,
    EvidenceRevisionRecord,
    EvidenceUses,
    EvidenceWrite,
    MutationRecord,
    NewMutation,
    RetrievalFilter,
    RetrievalRecord,
    SearchHit,
    Settled,
    SnippetSpan,
    StorageUse,
    SweepCounts,
    TokenRecord,
    WorkspaceCounts,
    WorkspaceRecord,
)
from tests.support.fake_store import FakeUnitOfWork

Clock = Callable[[], datetime]


@dataclass
class _Evidence:
    id: str
    workspace_id: str
    kind: str
    source_url: str | None
    language: str | None
    created_at: datetime
    updated_at: datetime
    revisions: list[EvidenceRevisionRecord] = field(default_factory=list)


@dataclass
class Rows:
    """Everything beyond projects and corpora, shared by the repositories below."""

    retrievals: dict[str, RetrievalRecord] = field(default_factory=dict)
    evidence: dict[str, _Evidence] = field(default_factory=dict)
    identities: dict[tuple[str, str], str] = field(default_factory=dict)
    tokens: dict[str, TokenRecord] = field(default_factory=dict)  # by hash
    users: dict[str, str] = field(default_factory=dict)
    members: dict[tuple[str, str], tuple[WorkspaceRecord, str]] = field(default_factory=dict)


class FakeRetrievals:
    def __init__(self, storage: FakeStorage) -> None:
        self.storage = storage
        self.rows = storage.rows

    def _now(self) -> datetime:
        return self.storage.clock()

    def lookup(
        self, workspace_id: str, mutation_id: str
    ) -> tuple[MutationRecord | None, RetrievalRecord | None]:
        mutation = self.storage.state.mutations.get((workspace_id, mutation_id))
        receipt = next(
            (
                r
                for r in self.rows.retrievals.values()
                if (r.workspace_id, r.mutation_id) == (workspace_id, mutation_id)
            ),
            None,
        )
        return mutation, receipt

    def claim_retrieval(
        self,
        key: NewMutation,
        retrieval_id: str,
        kind: str,
        url: str,
        language: str | None,
        valid_until: datetime,
        source: str = "url",
        lease: tuple[str, float] | None = None,
    ) -> RetrievalRecord | None:
        if (key.workspace_id, key.mutation_id) in self.storage.state.mutations:
            return None
        self.storage.mutations.claim(key)
        owner, expires = (
            (None, None) if lease is None else (lease[0], self._now() + timedelta(seconds=lease[1]))
        )
        record = RetrievalRecord(
            retrieval_id,
            key.workspace_id,
            key.mutation_id,
            kind,
            url,
            language,
            State.PENDING if lease is None else State.RUNNING,
            key.created_at,
            None,
            valid_until,
            owner,
            expires,
            None,
            None,
            None,
            source,
        )
        self.rows.retrievals[retrieval_id] = record
        return record

    def retrieval_by_id(self, retrieval_id: str) -> RetrievalRecord | None:
        return self.rows.retrievals.get(retrieval_id)

    def acquire(
        self, retrieval_id: str, owner: str, lease_seconds: float
    ) -> RetrievalRecord | None:
        record = self.rows.retrievals.get(retrieval_id)
        if record is None or record.state != State.PENDING or record.valid_until <= self._now():
            return None
        if not self._free_for(record, owner):
            return None
        leased = replace(
            record,
            state=State.RUNNING,
            lease_owner=owner,
            lease_expires_at=self._now() + timedelta(seconds=lease_seconds),
        )
        self.rows.retrievals[retrieval_id] = leased
        return leased

    def _free_for(self, record: RetrievalRecord, owner: str | None) -> bool:
        expires = record.lease_expires_at
        return record.lease_owner in (None, owner) or (
            expires is not None and expires < self._now()
        )

    def renew(self, retrieval_id: str, owner: str, lease_seconds: float) -> bool:
        record = self.rows.retrievals.get(retrieval_id)
        if record is None or record.state not in OPEN_STATES or record.lease_owner != owner:
            return False
        until = self._now() + timedelta(seconds=lease_seconds)
        self.rows.retrievals[retrieval_id] = replace(record, lease_expires_at=until)
        return True

    def park(self, retrieval_id: str, owner: str, lease_seconds: float) -> bool:
        record = self.rows.retrievals.get(retrieval_id)
        if record is None or record.state != State.RUNNING or record.lease_owner != owner:
            return False
        until = self._now() + timedelta(seconds=lease_seconds)
        self.rows.retrievals[retrieval_id] = replace(
            record, state=State.PENDING, lease_expires_at=until
        )
        return True

    def release(self, retrieval_id: str, owner: str) -> bool:
        record = self.rows.retrievals.get(retrieval_id)
        if record is None or record.state != State.PENDING or record.lease_owner != owner:
            return False
        self.rows.retrievals[retrieval_id] = replace(
            record, lease_owner=None, lease_expires_at=None
        )
        return True

    def settle(
        self,
        retrieval_id: str,
        owner: str | None,
        state: str,
        result: str | None,
        now: datetime,
        evidence_item: EvidenceWrite | None = None,
        outcome: tuple[str | None, str | None] = (None, None),
        cause: str | None = None,
    ) -> Settled | None:
        record = self.rows.retrievals.get(retrieval_id)
        if record is None:
            return None
        held = record.state == State.RUNNING and record.lease_owner == owner
        if not (held if owner is not None else record.state in OPEN_STATES):
            return None
        evidence_id, revision = (None, None)
        if evidence_item is not None:
            evidence_id, revision = self.storage.evidence.record(evidence_item, now)
        self.rows.retrievals[retrieval_id] = replace(
            record,
            state=state,
            result=result,
            settled_at=now,
            lease_owner=None,
            evidence_id=evidence_id,
            evidence_revision=revision,
            cause=cause,
        )
        return Settled(evidence_id, revision)

    def sweep(self, retrieval_id: str | None = None) -> SweepCounts:
        now, lost, late = self._now(), 0, 0
        for rid, r in list(self.rows.retrievals.items()):
            if retrieval_id not in (None, rid):
                continue
            if r.state == State.RUNNING and r.lease_expires_at and r.lease_expires_at < now:
                self.rows.retrievals[rid] = replace(
                    r, state=State.UNCONFIRMED, settled_at=now, lease_owner=None
                )
                lost += 1
            elif r.state == State.PENDING and r.valid_until <= now:
                self.rows.retrievals[rid] = replace(r, state=State.EXPIRED, settled_at=now)
                late += 1
        return SweepCounts(lost, late)

    def lookup_or_use(
        self, workspace_id: str, mutation_id: str
    ) -> tuple[MutationRecord | None, RetrievalRecord | None, StorageUse | None]:
        """The in-memory port keeps no storage count: it has no limit (store/usage.py)."""
        mutation, receipt = self.lookup(workspace_id, mutation_id)
        return mutation, receipt, None if mutation else StorageUse(workspace_id, 0, 0)

    def pending_ids(self, limit: int) -> list[str]:
        pending = [
            r
            for r in self.rows.retrievals.values()
            if r.state == State.PENDING and r.source == "url" and self._free_for(r, None)
        ]
        return [r.id for r in sorted(pending, key=lambda r: r.created_at)][:limit]


class FakeEvidence:
    def __init__(self, storage: FakeStorage) -> None:
        self.storage = storage
        self.rows = storage.rows

    def record(self, item: EvidenceWrite, now: datetime) -> tuple[str, int]:
        """A new revision only when the digest differs from the latest (the store's rule)."""
        key = (item.workspace_id, item.identity)
        evidence_id = self.rows.identities.setdefault(key, str(uuid.uuid4()))
        held = self.rows.evidence.setdefault(
            evidence_id,
            _Evidence(
                evidence_id, item.workspace_id, item.kind, item.source_url, item.language, now, now
            ),
        )
        if held.revisions and held.revisions[-1].digest == item.digest:
            return evidence_id, held.revisions[-1].revision
        number = len(held.revisions) + 1
        held.revisions.append(
            EvidenceRevisionRecord(
                evidence_id, item.workspace_id, item.kind, number, number, item.digest,
                item.content, now, item.whole, item.citation,
            )
        )  # fmt: skip
        self.storage.captures.keep(item, evidence_id, number)
        held.updated_at = now
        self.storage.state.evidence[evidence_id] = (item.workspace_id, number)
        return evidence_id, number

    def _as_of(self, held: _Evidence, number: int) -> EvidenceRevisionRecord:
        return replace(held.revisions[number - 1], latest_revision=len(held.revisions))

    def revision(
        self, workspace_id: str, evidence_id: str, revision: int | None
    ) -> EvidenceRevisionRecord | None:
        held = self.rows.evidence.get(evidence_id)
        if held is None or held.workspace_id != workspace_id:
            return None
        number = revision or len(held.revisions)
        return self._as_of(held, number) if 1 <= number <= len(held.revisions) else None

    def revisions(
        self, workspace_id: str, pairs: list[tuple[str, int]]
    ) -> list[EvidenceRevisionRecord]:
        found = [self.revision(workspace_id, e, r) for e, r in pairs]
        return [f for f in found if f is not None]

    def list_page(
        self,
        workspace_id: str,
        *,
        kind: str | None,
        language: str | None,
        cursor: str | None,
        limit: int,
    ) -> tuple[list[EvidenceListRow], str | None]:
        rows = [
            EvidenceListRow(
                e.id, e.kind, e.source_url, e.language, len(e.revisions),
                e.revisions[-1].content, e.created_at, e.updated_at,
            )
            for e in reversed(self.rows.evidence.values())
            if e.workspace_id == workspace_id
            and kind in (None, e.kind)
            and (language is None or (e.language or "").lower() == language.lower())
        ]  # fmt: skip
        return rows[:limit], None


class FakeCaptures:
    """The captures port: each new revision's captures, bodies kept as given."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, int], tuple[str, list[CaptureRecord]]] = {}

    def keep(self, item: EvidenceWrite, evidence_id: str, revision: int) -> None:
        self.kept[(evidence_id, revision)] = (
            item.workspace_id,
            [
                CaptureRecord(
                    evidence_id, revision, seq, c.role, c.url, c.retrieved_at, c.ip, c.status,
                    c.meta, hashlib.sha256(c.body).hexdigest(), c.body,
                )
                for seq, c in enumerate(item.captures)
            ],
        )  # fmt: skip

    def of_revision(
        self, workspace_id: str, evidence_id: str, revision: int
    ) -> list[CaptureRecord]:
        owner, records = self.kept.get((evidence_id, revision), ("", []))
        return list(records) if owner == workspace_id else []


class FakeSearch:
    """Every phrase must occur (case-folded) in the revision; score = occurrences."""

    def __init__(self, storage: FakeStorage) -> None:
        self.storage = storage

    def search(
        self,
        workspace_id: str,
        phrases: Sequence[str],
        *,
        kind: str | None,
        pins: Sequence[tuple[str, int]] | None,
        offset: int,
        limit: int,
    ) -> tuple[list[SearchHit], bool]:
        evidence = self.storage.evidence
        if pins is None:
            candidates = [
                evidence.revision(workspace_id, e.id, None)
                for e in self.storage.rows.evidence.values()
            ]
        else:
            candidates = evidence.revisions(workspace_id, list(pins))
        hits = []
        for record in candidates:
            if record is None or kind not in (None, record.kind):
                continue
            hit = _hit(record, phrases)
            if hit is not None:
                hits.append(hit)
        hits.sort(key=lambda h: (-h.score, h.evidence_id))
        return hits[offset : offset + limit], len(hits) > offset + limit


def _hit(record: EvidenceRevisionRecord, phrases: Sequence[str]) -> SearchHit | None:
    content = RetrieveResult.model_validate_json(record.content)
    full = json.loads(record.whole)["text"] if record.whole else content.text
    text = full.casefold()
    whole = " ".join([content.title or "", content.description or "", text]).casefold()
    if not all(p.casefold() in whole for p in phrases):
        return None
    spans = []
    for phrase in phrases:
        at = text.find(phrase.casefold())
        if at >= 0:
            spans.append(SnippetSpan(at, at + len(phrase), None, None))
    score = float(sum(whole.count(p.casefold()) for p in phrases))
    source = content.provenance.source_url
    return SearchHit(
        record.evidence_id, record.revision, record.kind, source, score, record.content,
        tuple(spans),
    )  # fmt: skip


class FakeReview:
    def __init__(self, storage: FakeStorage) -> None:
        self.rows = storage.rows
        self.storage = storage

    def counts(self, workspace_id: str) -> WorkspaceCounts:
        receipts = [r for r in self.rows.retrievals.values() if r.workspace_id == workspace_id]
        by_state: dict[str, int] = {}
        by_status: dict[str, int] = {}
        for r in receipts:
            by_state[r.state] = by_state.get(r.state, 0) + 1
            if r.result:
                status = RetrieveResult.model_validate_json(r.result).status
                by_status[status] = by_status.get(status, 0) + 1
        state = self.storage.state
        return WorkspaceCounts(
            by_state,
            by_status,
            sum(e.workspace_id == workspace_id for e in self.rows.evidence.values()),
            sum(p.workspace_id == workspace_id for p in state.projects.values()),
            sum(c[-1].workspace_id == workspace_id for c in state.corpora.values()),
        )

    def retrievals_page(
        self, workspace_id: str, *, where: RetrievalFilter, cursor: str | None, limit: int
    ) -> tuple[list[RetrievalRecord], str | None]:
        def kept(r: RetrievalRecord) -> bool:
            result = RetrieveResult.model_validate_json(r.result) if r.result else None
            return (
                r.workspace_id == workspace_id
                and where.state in (None, r.state)
                and where.status in (None, result.status if result else None)
                and where.reason in (None, result.reason if result else None)
                and (not where.url_contains or where.url_contains in r.url)
            )

        rows = sorted(filter(kept, self.rows.retrievals.values()), key=lambda r: r.created_at)
        return rows[::-1][:limit], None

    def uses(self, workspace_id: str, evidence_id: str) -> EvidenceUses:
        return EvidenceUses((), ())  # projects and corpora are tested on the real stores

    def retrieval(self, workspace_id: str, retrieval_id: str) -> RetrievalRecord | None:
        record = self.rows.retrievals.get(retrieval_id)
        return record if record is not None and record.workspace_id == workspace_id else None


class FakeAuth:
    """The guard's and whoami's reads: tokens by hash, memberships, user names."""

    def __init__(self, storage: FakeStorage) -> None:
        self.rows = storage.rows

    def token_by_hash(self, token_hash: str) -> TokenRecord | None:
        return self.rows.tokens.get(token_hash)

    def touch_token(self, token_id: str, now: datetime) -> None:
        for token_hash, record in list(self.rows.tokens.items()):
            if record.id == token_id:
                self.rows.tokens[token_hash] = replace(record, last_used_at=now)

    def membership(self, workspace_id: str, user_id: str) -> tuple[WorkspaceRecord, str] | None:
        return self.rows.members.get((workspace_id, user_id))

    def user_name(self, user_id: str) -> str | None:
        return self.rows.users.get(user_id)

    def memberships_of(self, user_id: str) -> list[tuple[WorkspaceRecord, str]]:
        return [m for (_, u), m in self.rows.members.items() if u == user_id]


class FakeStorage(FakeUnitOfWork):
    """`research.ports.Storage` in memory, on a clock the test may move."""

    def __init__(self, clock: Clock = lambda: datetime.now(UTC)) -> None:
        super().__init__()
        self.clock = clock
        self.rows = Rows()
        self.retrievals = FakeRetrievals(self)
        self.captures = FakeCaptures()
        self.evidence = FakeEvidence(self)
        self.search = FakeSearch(self)
        self.review = FakeReview(self)
        self.auth = FakeAuth(self)
        self.sessions = None  # console sessions are tested on the real stores
