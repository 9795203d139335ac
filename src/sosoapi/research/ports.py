"""What the use cases ask of storage: repositories and a transaction, as protocols.

The storage port of "Architecture Patterns with Python": a use case reads through these
repositories and writes through `transaction()` (or a repository's own one-statement
writes), and sees only the plain records of `store/records.py`, never a connection or
SQL. `store.Store` is the real adapter (SQLite or PostgreSQL); the in-memory one of
`tests/support/fake_store.py` runs the same use cases in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from sosoapi.store.records import (
    CaptureRecord,
    CorpusRow,
    EvidenceListRow,
    EvidenceRevisionRecord,
    EvidenceUses,
    EvidenceWrite,
    MutationRecord,
    NewMutation,
    ProjectRow,
    RetrievalFilter,
    RetrievalRecord,
    SearchHit,
    SessionRecord,
    Settled,
    StorageUse,
    SweepCounts,
    TokenRecord,
    WorkspaceCounts,
    WorkspaceRecord,
)


class Page(Protocol):
    def list_page(
        self, workspace_id: str, *, cursor: str | None, limit: int
    ) -> tuple[list[Any], str | None]: ...


class MutationsRepo(Protocol):
    def get(self, workspace_id: str, mutation_id: str) -> MutationRecord | None: ...


class ProjectsRepo(Page, Protocol):
    def get(self, workspace_id: str, project_id: str) -> ProjectRow | None: ...


class CorporaRepo(Page, Protocol):
    def get(self, workspace_id: str, corpus_id: str, revision: int | None) -> CorpusRow | None: ...


class RetrievalsRepo(Protocol):
    """Receipts: claimed with their key, leased, settled with their evidence, swept."""

    def lookup(
        self, workspace_id: str, mutation_id: str
    ) -> tuple[MutationRecord | None, RetrievalRecord | None]: ...
    def lookup_or_use(
        self, workspace_id: str, mutation_id: str
    ) -> tuple[MutationRecord | None, RetrievalRecord | None, StorageUse | None]:
        """`lookup`, with the workspace's storage use (against its limit) for a new key."""

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
        """Claim the key with a `pending` receipt, or with `lease` (owner, seconds) a
        `running` one under that lease; None when the key exists."""

    def retrieval_by_id(self, retrieval_id: str) -> RetrievalRecord | None: ...
    def acquire(
        self, retrieval_id: str, owner: str, lease_seconds: float
    ) -> RetrievalRecord | None: ...
    def renew(self, retrieval_id: str, owner: str, lease_seconds: float) -> bool: ...
    def park(self, retrieval_id: str, owner: str, lease_seconds: float) -> bool: ...
    def release(self, retrieval_id: str, owner: str) -> bool: ...
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
        """Settle an open receipt with its evidence; `StorageFull` (nothing kept) when
        the evidence would pass the workspace's storage limit."""

    def sweep(self, retrieval_id: str | None = None) -> SweepCounts: ...
    def pending_ids(self, limit: int) -> list[str]: ...


class EvidenceRepo(Protocol):
    def revision(
        self, workspace_id: str, evidence_id: str, revision: int | None
    ) -> EvidenceRevisionRecord | None: ...
    def revisions(
        self, workspace_id: str, pairs: list[tuple[str, int]]
    ) -> list[EvidenceRevisionRecord]: ...
    def list_page(
        self,
        workspace_id: str,
        *,
        kind: str | None,
        language: str | None,
        cursor: str | None,
        limit: int,
    ) -> tuple[list[EvidenceListRow], str | None]: ...


class CapturesRepo(Protocol):
    """The exchanges behind a revision, bodies restored (one revision at a time)."""

    def of_revision(
        self, workspace_id: str, evidence_id: str, revision: int
    ) -> list[CaptureRecord]: ...


class SearchIndex(Protocol):
    """Ranked matching over the passages a revision was written with; `phrases` come in
    the search form (`extract.passages.searchable`), as the passages were stored."""

    def search(
        self,
        workspace_id: str,
        phrases: Sequence[str],
        *,
        kind: str | None,
        pins: Sequence[tuple[str, int]] | None,
        offset: int,
        limit: int,
    ) -> tuple[list[SearchHit], bool]: ...


class SessionsRepo(Protocol):
    def create(
        self, session_hash: str, token_id: str, now: datetime, expires_at: datetime
    ) -> SessionRecord: ...
    def by_hash(self, session_hash: str) -> tuple[SessionRecord, TokenRecord] | None: ...
    def revoke(self, session_hash: str, now: datetime) -> bool: ...


class ReviewRows(Protocol):
    """The console-only reads: counts and the retrievals table."""

    def counts(self, workspace_id: str) -> WorkspaceCounts: ...
    def retrievals_page(
        self, workspace_id: str, *, where: RetrievalFilter, cursor: str | None, limit: int
    ) -> tuple[list[RetrievalRecord], str | None]: ...
    def retrieval(self, workspace_id: str, retrieval_id: str) -> RetrievalRecord | None: ...
    def uses(self, workspace_id: str, evidence_id: str) -> EvidenceUses: ...


class Members(Protocol):
    """Who a caller is, for `sosoapi_whoami`."""

    def user_name(self, user_id: str) -> str | None: ...
    def memberships_of(self, user_id: str) -> list[tuple[WorkspaceRecord, str]]: ...


class MutationsInTx(Protocol):
    def claim(self, key: NewMutation) -> None: ...
    def store_result(self, key: NewMutation, result: str) -> None: ...


class ProjectsInTx(Protocol):
    def get(self, workspace_id: str, project_id: str) -> ProjectRow | None: ...
    def lock(self, workspace_id: str, project_id: str) -> ProjectRow | None: ...
    def create(self, workspace_id: str, project_id: str, title: str, now: datetime) -> None: ...
    def bump(self, project_id: str, now: datetime, title: str | None = None) -> None: ...
    def add_sources(
        self, project_id: str, evidence_ids: list[str], notes: list[str], now: datetime
    ) -> None: ...
    def remove_sources(
        self, project_id: str, evidence_ids: list[str], notes: list[str]
    ) -> None: ...
    def existing_evidence(self, workspace_id: str, ids: list[str]) -> set[str]: ...
    def latest_revisions(self, ids: list[str]) -> dict[str, int]: ...


class CorporaInTx(Protocol):
    def owner_project(self, workspace_id: str, corpus_id: str) -> str | None: ...
    def seal(
        self, workspace_id: str, corpus_id: str, project_id: str, snapshot: str, now: datetime
    ) -> int: ...


class Transaction(Protocol):
    """One write transaction's repositories."""

    @property
    def mutations(self) -> MutationsInTx: ...
    @property
    def projects(self) -> ProjectsInTx: ...
    @property
    def corpora(self) -> CorporaInTx: ...


class UnitOfWork(Protocol):
    """Repositories that read on their own, and write transactions (`KeyTaken` on a race)."""

    @property
    def mutations(self) -> MutationsRepo: ...
    @property
    def projects(self) -> ProjectsRepo: ...
    @property
    def corpora(self) -> CorporaRepo: ...
    def transaction(self) -> AbstractContextManager[Transaction]: ...


class Storage(UnitOfWork, Protocol):
    """Everything the research service reads and writes: the whole port."""

    @property
    def retrievals(self) -> RetrievalsRepo: ...
    @property
    def evidence(self) -> EvidenceRepo: ...
    @property
    def captures(self) -> CapturesRepo: ...
    @property
    def search(self) -> SearchIndex: ...
    @property
    def sessions(self) -> SessionsRepo: ...
    @property
    def review(self) -> ReviewRows: ...
    @property
    def auth(self) -> Members: ...
