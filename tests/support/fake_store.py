"""An in-memory unit of work: the storage port of `research/ports.py` without a database.

Use cases run on it exactly as on `store.Store`, so their rules (write-once replay,
conflicts, one revision per change, sealing) are tested in milliseconds; the same use
cases run on SQLite and PostgreSQL in the loop tests. A transaction works on a copy of
the state and commits it only when the change returns, so a change that raises leaves
nothing behind, as a rolled-back transaction does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime

from sosoapi.store.records import (
    CorpusRow,
    KeyTaken,
    MutationRecord,
    NewMutation,
    ProjectRow,
    SourceRow,
)


@dataclass
class State:
    mutations: dict[tuple[str, str], MutationRecord] = field(default_factory=dict)
    projects: dict[str, ProjectRow] = field(default_factory=dict)
    corpora: dict[str, list[CorpusRow]] = field(default_factory=dict)
    evidence: dict[str, tuple[str, int]] = field(default_factory=dict)  # id: (workspace, rev)


class _Mutations:
    def __init__(self, state: State) -> None:
        self.state = state

    def get(self, workspace_id: str, mutation_id: str) -> MutationRecord | None:
        return self.state.mutations.get((workspace_id, mutation_id))

    def claim(self, key: NewMutation) -> None:
        if (key.workspace_id, key.mutation_id) in self.state.mutations:
            raise KeyTaken(f"{key.workspace_id}/{key.mutation_id}")
        self.state.mutations[key.workspace_id, key.mutation_id] = MutationRecord(
            key.workspace_id,
            key.mutation_id,
            key.tool,
            key.fingerprint,
            key.arguments,
            key.token_id,
            None,
            key.created_at,
        )

    def store_result(self, key: NewMutation, result: str) -> None:
        record = self.state.mutations[key.workspace_id, key.mutation_id]
        self.state.mutations[key.workspace_id, key.mutation_id] = replace(record, result=result)


class _Projects:
    def __init__(self, state: State) -> None:
        self.state = state

    def get(self, workspace_id: str, project_id: str) -> ProjectRow | None:
        row = self.state.projects.get(project_id)
        return row if row is not None and row.workspace_id == workspace_id else None

    lock = get

    def list_page(
        self, workspace_id: str, *, cursor: str | None, limit: int
    ) -> tuple[list[ProjectRow], str | None]:
        rows = [r for r in self.state.projects.values() if r.workspace_id == workspace_id]
        return rows[:limit], None

    def create(self, workspace_id: str, project_id: str, title: str, now: datetime) -> None:
        self.state.projects[project_id] = ProjectRow(project_id, workspace_id, title, 1, now, now)

    def bump(self, project_id: str, now: datetime, title: str | None = None) -> None:
        row = self.state.projects[project_id]
        self.state.projects[project_id] = replace(
            row, revision=row.revision + 1, updated_at=now, title=title or row.title
        )

    def add_sources(
        self, project_id: str, evidence_ids: list[str], notes: list[str], now: datetime
    ) -> None:
        row = self.state.projects[project_id]
        added = [SourceRow(e, None, now) for e in evidence_ids]
        added += [SourceRow(None, n, now) for n in notes]
        sources = (*row.sources, *added)
        self.state.projects[project_id] = replace(row, sources=sources, source_count=len(sources))

    def remove_sources(self, project_id: str, evidence_ids: list[str], notes: list[str]) -> None:
        row = self.state.projects[project_id]
        sources = tuple(
            s for s in row.sources if s.evidence_id not in evidence_ids and s.note not in notes
        )
        self.state.projects[project_id] = replace(row, sources=sources, source_count=len(sources))

    def existing_evidence(self, workspace_id: str, ids: list[str]) -> set[str]:
        return {e for e in ids if self.state.evidence.get(e, ("", 0))[0] == workspace_id}

    def latest_revisions(self, ids: list[str]) -> dict[str, int]:
        return {e: self.state.evidence[e][1] for e in ids if e in self.state.evidence}


class _Corpora:
    def __init__(self, state: State) -> None:
        self.state = state

    def get(self, workspace_id: str, corpus_id: str, revision: int | None) -> CorpusRow | None:
        revisions = [
            r for r in self.state.corpora.get(corpus_id, []) if r.workspace_id == workspace_id
        ]
        if not revisions:
            return None
        wanted = revision or len(revisions)
        return revisions[wanted - 1] if wanted <= len(revisions) else None

    def list_page(
        self, workspace_id: str, *, cursor: str | None, limit: int
    ) -> tuple[list[CorpusRow], str | None]:
        rows = [r[-1] for r in self.state.corpora.values() if r[-1].workspace_id == workspace_id]
        return rows[:limit], None

    def owner_project(self, workspace_id: str, corpus_id: str) -> str | None:
        row = self.get(workspace_id, corpus_id, None)
        return row.project_id if row else None

    def seal(
        self, workspace_id: str, corpus_id: str, project_id: str, snapshot: str, now: datetime
    ) -> int:
        revisions = self.state.corpora.setdefault(corpus_id, [])
        created = revisions[0].created_at if revisions else now
        revision = len(revisions) + 1
        revisions.append(
            CorpusRow(
                corpus_id, workspace_id, project_id, revision, revision, snapshot, now, created
            )
        )
        for number, row in enumerate(revisions[:-1]):
            revisions[number] = replace(row, latest_revision=revision)
        return revision


@dataclass(frozen=True, slots=True)
class FakeTransaction:
    mutations: _Mutations
    projects: _Projects
    corpora: _Corpora


class FakeUnitOfWork:
    """`research.ports.UnitOfWork` in memory; `before_commit` lets a test race a transaction."""

    def __init__(self) -> None:
        self.state = State()
        self.before_commit: Callable[[], None] | None = None
        self.commits = 0

    @property
    def mutations(self) -> _Mutations:
        return _Mutations(self.state)

    @property
    def projects(self) -> _Projects:
        return _Projects(self.state)

    @property
    def corpora(self) -> _Corpora:
        return _Corpora(self.state)

    @contextmanager
    def transaction(self) -> Iterator[FakeTransaction]:
        started = set(self.state.mutations)
        working = copy.deepcopy(self.state)
        yield FakeTransaction(_Mutations(working), _Projects(working), _Corpora(working))
        if self.before_commit is not None:  # another caller commits first
            hook, self.before_commit = self.before_commit, None
            hook()
        claimed = set(working.mutations) - started
        if claimed & set(self.state.mutations):
            raise KeyTaken("the key was claimed by a transaction that committed first")
        self.state = working
        self.commits += 1
