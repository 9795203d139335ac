"""Pydantic models of the project, corpus and whoami tools' inputs and outputs.

Apart from the evidence tools' (contract/models.py, whose `Wire` base and shared types
they use) so each module reads at one sitting; dumped with `wire()` like every output.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from sosoapi.contract.models import (
    MAX_CORPUS_ITEMS,
    METHOD_VERSION,
    Coverage,
    Cursor,
    EvidenceRef,
    Note,
    Revision,
    Timestamp,
    Title,
    UUIDStr,
    Wire,
)

Role = Literal["owner", "editor", "viewer"]


# --- sosoapi_research_corpora_get -------------------------------------------------------


class CorporaGetInput(Wire):
    workspace_id: UUIDStr
    id: UUIDStr
    revision: Revision | None = None


class Snapshot(Wire):
    id: UUIDStr
    workspace_id: UUIDStr
    project_id: UUIDStr
    project_revision: Revision
    evidence: Annotated[list[EvidenceRef], Field(max_length=MAX_CORPUS_ITEMS)]
    sealed_at: Timestamp
    coverage: Coverage
    missing_sources: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=100)]], Field(max_length=20)
    ]
    method_version: Literal["research-corpus/v1"] = METHOD_VERSION


class CorporaGetOutput(Wire):
    snapshot: Snapshot


# --- projects, sealing and whoami --------------------------------------------------


class ProjectCreateInput(Wire):
    workspace_id: UUIDStr
    mutation_id: UUIDStr
    title: Title


class ProjectGetInput(Wire):
    workspace_id: UUIDStr
    project_id: UUIDStr


class ProjectUpdateInput(Wire):
    workspace_id: UUIDStr
    mutation_id: UUIDStr
    project_id: UUIDStr
    title: Title


EvidenceIds = Annotated[list[UUIDStr], Field(max_length=500)]


class ProjectSourcesInput(Wire):
    """add_sources: either list may be absent."""

    workspace_id: UUIDStr
    mutation_id: UUIDStr
    project_id: UUIDStr
    evidence_ids: EvidenceIds = []  # noqa: RUF012 (a pydantic field: copied per model)
    missing_notes: Annotated[list[Note], Field(max_length=100)] = []  # noqa: RUF012


class ProjectRemoveSourcesInput(ProjectSourcesInput):
    """remove_sources: `evidence_ids` is required, as its published schema says."""

    evidence_ids: EvidenceIds


class CorporaSealInput(Wire):
    workspace_id: UUIDStr
    mutation_id: UUIDStr
    project_id: UUIDStr
    corpus_id: UUIDStr | None = None
    max_items: Annotated[int, Field(ge=1, le=MAX_CORPUS_ITEMS)] = MAX_CORPUS_ITEMS


class WhoamiInput(Wire):
    pass


class ProjectSource(Wire):
    kind: Literal["evidence", "missing_note"]
    evidence_id: UUIDStr | None
    note: Note | None
    added_at: Timestamp


class Project(Wire):
    id: UUIDStr
    workspace_id: UUIDStr
    title: Title
    revision: Revision
    sources: list[ProjectSource]
    created_at: Timestamp
    updated_at: Timestamp


class ProjectOutput(Wire):
    project: Project


class ProjectItem(Wire):
    id: UUIDStr
    workspace_id: UUIDStr
    title: Title
    revision: Revision
    source_count: Annotated[int, Field(ge=0)]
    created_at: Timestamp
    updated_at: Timestamp


class ProjectListOutput(Wire):
    items: list[ProjectItem]
    next_cursor: Cursor | None


class SealOutput(Wire):
    snapshot: Snapshot
    revision: Revision


class CorpusItem(Wire):
    id: UUIDStr
    project_id: UUIDStr
    latest_revision: Revision
    project_revision: Revision
    coverage: Coverage
    evidence_count: Annotated[int, Field(ge=0, le=500)]
    sealed_at: Timestamp


class CorporaListOutput(Wire):
    items: list[CorpusItem]
    next_cursor: Cursor | None


class WhoamiWorkspace(Wire):
    id: UUIDStr
    name: str
    role: Role
    research_enabled: bool


class WhoamiOutput(Wire):
    user_id: UUIDStr
    user_name: str
    token_id: UUIDStr
    scopes: list[str]
    workspaces: list[WhoamiWorkspace]
