"""The project and corpus use cases on an in-memory unit of work: the rules, in milliseconds.

The same use cases run on SQLite and PostgreSQL in `test_loop.py`; here they see only
`tests/support/fake_store.py`, which is what the unit-of-work port makes possible.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from sosoapi.auth.permission import Access
from sosoapi.auth.tokens import RESEARCH_SCOPE, Principal
from sosoapi.contract.errors import ServiceError
from sosoapi.contract.models import Wire
from sosoapi.contract.projects import (
    CorporaGetInput,
    CorporaSealInput,
    ProjectCreateInput,
    ProjectSourcesInput,
)
from sosoapi.research.corpora.projects import ProjectService
from sosoapi.research.corpora.sealing import CorpusService
from sosoapi.research.operation import Call
from sosoapi.store.records import WorkspaceRecord
from tests.support.contract import assert_valid_output
from tests.support.fake_store import FakeUnitOfWork

WS = str(uuid.uuid4())
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
P = "sosoapi_research_"


@pytest.fixture
def uow() -> FakeUnitOfWork:
    return FakeUnitOfWork()


def call(model: type[Wire], **arguments: Any) -> Call[Any]:
    arguments = {"workspace_id": WS, **arguments}
    principal = Principal("token-1", "user-1", frozenset({RESEARCH_SCOPE}), None)
    workspace = WorkspaceRecord(WS, "w", True, True, NOW)
    access = Access(principal, workspace, "owner")
    return Call(principal, access, model.model_validate(arguments), arguments, lambda: False)


def key() -> str:
    return str(uuid.uuid4())


def evidence(uow: FakeUnitOfWork, count: int, revision: int = 1) -> list[str]:
    ids = [str(uuid.uuid4()) for _ in range(count)]
    uow.state.evidence.update({e: (WS, revision) for e in ids})
    return ids


async def create(projects: ProjectService, mutation_id: str | None = None) -> str:
    outcome = await projects.create(
        call(ProjectCreateInput, mutation_id=mutation_id or key(), title="T")
    )
    assert_valid_output(P + "projects_create", outcome.output.wire())
    return outcome.output.wire()["project"]["id"]


async def test_create_add_seal_and_read_back(uow: FakeUnitOfWork) -> None:
    projects, corpora = ProjectService(uow, lambda: NOW), CorpusService(uow, lambda: NOW)
    pid = await create(projects)
    ids = evidence(uow, 2, revision=3)
    added = await projects.add_sources(
        call(
            ProjectSourcesInput,
            mutation_id=key(),
            project_id=pid,
            evidence_ids=ids,
            missing_notes=["one source was gone"],
        )
    )
    project = added.output.wire()["project"]
    assert project["revision"] == 2
    assert [s["evidence_id"] for s in project["sources"]] == [*ids, None]
    sealed = await corpora.seal(call(CorporaSealInput, mutation_id=key(), project_id=pid))
    snapshot = sealed.output.wire()["snapshot"]
    assert_valid_output(P + "corpora_seal", sealed.output.wire())
    assert sealed.corpus_revision == 1
    assert snapshot["evidence"] == [{"evidence_id": e, "revision": 3} for e in ids]
    assert snapshot["coverage"] == "partial" and snapshot["missing_sources"] == [
        "one source was gone"
    ]
    read = await corpora.get(call(CorporaGetInput, id=snapshot["id"]))
    assert read.output.wire()["snapshot"] == snapshot and read.corpus_revision == 1


async def test_a_replay_returns_the_stored_result_and_writes_nothing(uow: FakeUnitOfWork) -> None:
    projects = ProjectService(uow, lambda: NOW)
    mutation_id = key()
    first = await create(projects, mutation_id)
    commits, state = uow.commits, json.dumps(repr(uow.state))
    assert await create(projects, mutation_id) == first
    assert uow.commits == commits and json.dumps(repr(uow.state)) == state
    assert len(uow.state.projects) == 1


async def test_a_key_reused_with_other_arguments_is_a_conflict_naming_the_field(
    uow: FakeUnitOfWork,
) -> None:
    projects = ProjectService(uow, lambda: NOW)
    mutation_id = key()
    await create(projects, mutation_id)
    with pytest.raises(ServiceError) as raised:
        await projects.create(call(ProjectCreateInput, mutation_id=mutation_id, title="Other"))
    assert raised.value.code == "conflict" and raised.value.field == "title"
    assert "'T'" in raised.value.message and "'Other'" in raised.value.message


async def test_a_refused_change_leaves_nothing_behind(uow: FakeUnitOfWork) -> None:
    projects = ProjectService(uow, lambda: NOW)
    pid = await create(projects)
    stranger = str(uuid.uuid4())
    uow.state.evidence[stranger] = (str(uuid.uuid4()), 1)  # evidence of another workspace
    mutation_id = key()
    with pytest.raises(ServiceError) as raised:
        await projects.add_sources(
            call(
                ProjectSourcesInput,
                mutation_id=mutation_id,
                project_id=pid,
                evidence_ids=[stranger],
            )
        )
    assert raised.value.code == "not_found" and stranger in raised.value.message
    assert (WS, mutation_id) not in uow.state.mutations
    assert uow.state.projects[pid].revision == 1 and uow.state.projects[pid].sources == ()


async def test_a_change_that_changes_nothing_makes_no_revision(uow: FakeUnitOfWork) -> None:
    projects = ProjectService(uow, lambda: NOW)
    pid = await create(projects)
    ids = evidence(uow, 1)
    arguments = {"project_id": pid, "evidence_ids": ids}
    await projects.add_sources(call(ProjectSourcesInput, mutation_id=key(), **arguments))
    again = await projects.add_sources(call(ProjectSourcesInput, mutation_id=key(), **arguments))
    assert again.output.wire()["project"]["revision"] == 2


async def test_the_loser_of_a_race_for_a_key_returns_the_winners_result(
    uow: FakeUnitOfWork,
) -> None:
    projects = ProjectService(uow, lambda: NOW)
    mutation_id = key()
    winner = FakeUnitOfWork()
    winner_id = await create(ProjectService(winner, lambda: NOW), mutation_id)

    def commit_first() -> None:
        uow.state = winner.state

    uow.before_commit = commit_first
    assert await create(projects, mutation_id) == winner_id
    assert list(uow.state.projects) == [winner_id]


async def test_a_large_project_seals_the_documented_sample(uow: FakeUnitOfWork) -> None:
    projects, corpora = ProjectService(uow, lambda: NOW), CorpusService(uow, lambda: NOW)
    pid = await create(projects)
    ids = evidence(uow, 7)
    await projects.add_sources(
        call(ProjectSourcesInput, mutation_id=key(), project_id=pid, evidence_ids=ids)
    )
    sealed = await corpora.seal(
        call(CorporaSealInput, mutation_id=key(), project_id=pid, max_items=3)
    )
    snapshot = sealed.output.wire()["snapshot"]
    digest = {e: hashlib.sha256(f"{snapshot['id']}:{e}".encode()).hexdigest() for e in ids}
    smallest = sorted(digest.values())[:3]
    expected = [e for e in ids if digest[e] in smallest]
    assert [r["evidence_id"] for r in snapshot["evidence"]] == expected
    assert snapshot["coverage"] == "bounded_sample"


async def test_a_reseal_from_another_project_is_refused_naming_corpus_id(
    uow: FakeUnitOfWork,
) -> None:
    projects, corpora = ProjectService(uow, lambda: NOW), CorpusService(uow, lambda: NOW)
    first, second = await create(projects), await create(projects)
    sealed = await corpora.seal(call(CorporaSealInput, mutation_id=key(), project_id=first))
    corpus_id = sealed.output.wire()["snapshot"]["id"]
    resealed = await corpora.seal(
        call(CorporaSealInput, mutation_id=key(), project_id=first, corpus_id=corpus_id)
    )
    assert resealed.corpus_revision == 2
    with pytest.raises(ServiceError) as raised:
        await corpora.seal(
            call(CorporaSealInput, mutation_id=key(), project_id=second, corpus_id=corpus_id)
        )
    assert raised.value.code == "invalid_input" and raised.value.field == "corpus_id"
    assert len(uow.state.corpora[corpus_id]) == 2
