"""Research projects: create, read, rename, and add or remove supplied sources.

Every change makes exactly one new project revision, atomically under concurrency (the
project row is locked by the mutation's transaction); a change that changes nothing
makes none.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import anyio

from sosoapi.contract.errors import not_found
from sosoapi.contract.models import PageInput
from sosoapi.contract.projects import (
    Project,
    ProjectCreateInput,
    ProjectGetInput,
    ProjectItem,
    ProjectListOutput,
    ProjectOutput,
    ProjectSource,
    ProjectSourcesInput,
    ProjectUpdateInput,
)
from sosoapi.research.mutations import new_mutation, write_once
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.paging import read_page
from sosoapi.research.ports import Transaction, UnitOfWork
from sosoapi.store.records import ProjectRow


def project_model(row: ProjectRow) -> Project:
    return Project(
        id=row.id,
        workspace_id=row.workspace_id,
        title=row.title,
        revision=row.revision,
        sources=[
            ProjectSource(
                kind="evidence" if s.evidence_id else "missing_note",
                evidence_id=s.evidence_id,
                note=s.note,
                added_at=s.added_at,
            )
            for s in row.sources
        ],
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def project_not_found(project_id: str, workspace_id: str) -> Exception:
    return not_found(
        f"project_id {project_id} was not found in workspace {workspace_id}; list projects "
        "with `sosoapi_research_projects_list`."
    )


class ProjectService:
    def __init__(self, uow: UnitOfWork, clock: Callable[[], datetime]) -> None:
        self.uow = uow
        self.clock = clock

    @staticmethod
    def _locked(tx: Transaction, workspace_id: str, project_id: str) -> ProjectRow:
        row = tx.projects.lock(workspace_id, project_id)
        if row is None:
            raise project_not_found(project_id, workspace_id)
        return row

    @staticmethod
    def _reread(tx: Transaction, workspace_id: str, project_id: str) -> ProjectOutput:
        row = tx.projects.get(workspace_id, project_id)
        assert row is not None
        return ProjectOutput(project=project_model(row))

    async def _write(
        self, call: Call[Any], tool: str, change: Callable[[Transaction, datetime], ProjectOutput]
    ) -> Outcome:
        now = self.clock()
        key = new_mutation(tool, call.arguments, call.token_id, now)
        output = await write_once(self.uow, key, ProjectOutput, lambda tx: change(tx, now))
        return Outcome(output)

    async def create(self, call: Call[ProjectCreateInput]) -> Outcome:
        workspace_id, title = call.workspace_id, call.input.title

        def change(tx: Transaction, now: datetime) -> ProjectOutput:
            project_id = str(uuid.uuid4())
            tx.projects.create(workspace_id, project_id, title, now)
            return self._reread(tx, workspace_id, project_id)

        return await self._write(call, "sosoapi_research_projects_create", change)

    async def update(self, call: Call[ProjectUpdateInput]) -> Outcome:
        workspace_id, project_id = call.workspace_id, str(call.input.project_id)
        title = call.input.title

        def change(tx: Transaction, now: datetime) -> ProjectOutput:
            if self._locked(tx, workspace_id, project_id).title != title:
                tx.projects.bump(project_id, now, title=title)
            return self._reread(tx, workspace_id, project_id)

        return await self._write(call, "sosoapi_research_projects_update", change)

    async def add_sources(self, call: Call[ProjectSourcesInput]) -> Outcome:
        workspace_id, project_id = call.workspace_id, str(call.input.project_id)
        wanted = [str(e) for e in call.input.evidence_ids]
        notes = list(call.input.missing_notes)

        def change(tx: Transaction, now: datetime) -> ProjectOutput:
            row = self._locked(tx, workspace_id, project_id)
            unknown = sorted(set(wanted) - tx.projects.existing_evidence(workspace_id, wanted))
            if unknown:
                raise not_found(
                    f"evidence_ids {', '.join(unknown)} were not found in workspace "
                    f"{workspace_id}; add only evidence retrieved into this workspace."
                )
            present = {s.evidence_id for s in row.sources}
            fresh = [e for e in dict.fromkeys(wanted) if e not in present]
            if fresh or notes:
                tx.projects.add_sources(project_id, fresh, notes, now)
                tx.projects.bump(project_id, now)
            return self._reread(tx, workspace_id, project_id)

        return await self._write(call, "sosoapi_research_projects_add_sources", change)

    async def remove_sources(self, call: Call[ProjectSourcesInput]) -> Outcome:
        workspace_id, project_id = call.workspace_id, str(call.input.project_id)
        removing = [str(e) for e in call.input.evidence_ids]
        notes = list(call.input.missing_notes)

        def change(tx: Transaction, now: datetime) -> ProjectOutput:
            row = self._locked(tx, workspace_id, project_id)
            absent = sorted(set(removing) - {s.evidence_id for s in row.sources})
            absent += sorted(set(notes) - {s.note for s in row.sources})
            if absent:
                raise not_found(
                    f"{', '.join(absent)} not among the sources of project {project_id}; "
                    "read the project to see its sources."
                )
            if removing or notes:
                tx.projects.remove_sources(project_id, removing, notes)
                tx.projects.bump(project_id, now)
            return self._reread(tx, workspace_id, project_id)

        return await self._write(call, "sosoapi_research_projects_remove_sources", change)

    async def get(self, call: Call[ProjectGetInput]) -> Outcome:
        workspace_id, project_id = call.workspace_id, str(call.input.project_id)
        row = await anyio.to_thread.run_sync(self.uow.projects.get, workspace_id, project_id)
        if row is None:
            raise project_not_found(project_id, workspace_id)
        return Outcome(ProjectOutput(project=project_model(row)))

    async def list_page(self, call: Call[PageInput]) -> Outcome:
        rows, next_cursor = await read_page(call, self.uow.projects.list_page)
        items = [
            ProjectItem(
                id=r.id,
                workspace_id=r.workspace_id,
                title=r.title,
                revision=r.revision,
                source_count=r.source_count,
                created_at=r.created_at,
                updated_at=r.updated_at,
            )
            for r in rows
        ]
        return Outcome(ProjectListOutput(items=items, next_cursor=next_cursor))
