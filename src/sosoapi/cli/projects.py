"""`sosoapi projects`: collect sources into a research project, before sealing it."""

from __future__ import annotations

from typing import Any

import click

from sosoapi.cli.calls import (
    CURSOR,
    MUTATION,
    WORKSPACE,
    call,
    chosen_mutation,
    local_workspace,
    workspace_call,
)
from sosoapi.cli.common import json_option, main


@main.group()
def projects() -> None:
    """Research projects: collect sources, then seal them into corpora."""


@projects.command("create")
@click.argument("title")
@WORKSPACE
@MUTATION
@json_option
def projects_create(
    title: str, workspace_id: str | None, mutation_id: str | None, as_json: bool
) -> None:
    """Create a research project called TITLE."""
    workspace_call(
        "sosoapi_research_projects_create",
        workspace_id,
        {"mutation_id": chosen_mutation(mutation_id), "title": title},
        as_json,
    )


@projects.command("get")
@click.argument("project_id")
@WORKSPACE
@json_option
def projects_get(project_id: str, workspace_id: str | None, as_json: bool) -> None:
    """Show project PROJECT_ID: its title, evidence references and missing-source notes."""
    workspace_call(
        "sosoapi_research_projects_get", workspace_id, {"project_id": project_id}, as_json
    )


@projects.command("list")
@WORKSPACE
@CURSOR
@json_option
def projects_list(workspace_id: str | None, cursor: str | None, as_json: bool) -> None:
    """List the workspace's projects."""
    workspace_call("sosoapi_research_projects_list", workspace_id, {"cursor": cursor}, as_json)


@projects.command("update")
@click.argument("project_id")
@click.argument("title")
@WORKSPACE
@MUTATION
@json_option
def projects_update(
    project_id: str, title: str, workspace_id: str | None, mutation_id: str | None, as_json: bool
) -> None:
    """Rename project PROJECT_ID to TITLE."""
    workspace_call(
        "sosoapi_research_projects_update",
        workspace_id,
        {"mutation_id": chosen_mutation(mutation_id), "project_id": project_id, "title": title},
        as_json,
    )


def _sources_command(name: str, tool: str, note_help: str, summary_help: str) -> None:
    """`projects add-sources` and `projects remove-sources`: one shape, two tools."""

    @projects.command(name, help=summary_help)
    @click.argument("project_id")
    @WORKSPACE
    @MUTATION
    @click.option("--evidence", "evidence_ids", multiple=True, help="an evidence id (repeatable)")
    @click.option("--note", "notes", multiple=True, help=note_help)
    @json_option
    def command(
        project_id: str,
        workspace_id: str | None,
        mutation_id: str | None,
        evidence_ids: tuple[str, ...],
        notes: tuple[str, ...],
        as_json: bool,
    ) -> None:
        arguments: dict[str, Any] = {
            "workspace_id": workspace_id or local_workspace(),
            "mutation_id": chosen_mutation(mutation_id),
            "project_id": project_id,
        }
        if evidence_ids or tool.endswith("remove_sources"):  # remove requires the list
            arguments["evidence_ids"] = list(evidence_ids)
        if notes:
            arguments["missing_notes"] = list(notes)
        call(tool, arguments, as_json)


_sources_command(
    "add-sources",
    "sosoapi_research_projects_add_sources",
    "a note on a source that could not be retrieved (repeatable)",
    "Add evidence references and missing-source notes to project PROJECT_ID.",
)
_sources_command(
    "remove-sources",
    "sosoapi_research_projects_remove_sources",
    "a note to remove, exact text (repeatable)",
    "Remove evidence references and notes from project PROJECT_ID.",
)
