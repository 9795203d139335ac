"""What the project and corpus use cases ask of storage: repositories and a transaction.

The unit-of-work port of "Architecture Patterns with Python": a use case reads through
repositories and writes through `transaction()`, whose repositories commit together or
not at all; it never sees a connection or SQL. `store.Store` is the real unit of work
(SQLite or PostgreSQL); `tests/support/fake_store.py` is an in-memory one for fast tests.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from sosoapi.store.corpora_repo import CorpusRow
from sosoapi.store.mutations_repo import NewMutation
from sosoapi.store.projects_repo import ProjectRow
from sosoapi.store.records import MutationRecord


class Page(Protocol):
    def list_page(
        self, workspace_id: str, *, cursor: str | None, limit: int
    ) -> tuple[list, str | None]: ...


class Mutations(Protocol):
    def get(self, workspace_id: str, mutation_id: str) -> MutationRecord | None: ...


class Projects(Page, Protocol):
    def get(self, workspace_id: str, project_id: str) -> ProjectRow | None: ...


class Corpora(Page, Protocol):
    def get(self, workspace_id: str, corpus_id: str, revision: int | None) -> CorpusRow | None: ...


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
    def mutations(self) -> Mutations: ...
    @property
    def projects(self) -> Projects: ...
    @property
    def corpora(self) -> Corpora: ...
    def transaction(self) -> AbstractContextManager[Transaction]: ...
