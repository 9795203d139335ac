"""The operations from a shell: every verb calls the same service as MCP and HTTP."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import click

from sosoapi.auth.errors import BadToken, Fixes, NoToken
from sosoapi.cli.common import admin_session, emit, main, settings_from_env
from sosoapi.contract.errors import ServiceError

# A CLI user fixes the token in the shell's environment.
AUTH_FIXES: Fixes = {
    NoToken: "export SOSOAPI_TOKEN=<token>; `sosoapi init` prints one for the local workspace.",
    BadToken: "export a current SOSOAPI_TOKEN; `sosoapi init` or `sosoapi tokens create` "
    "mints one.",
}


def _local_workspace() -> str:
    with admin_session() as admin:
        workspace = admin.local_workspace()
    if workspace is None:
        raise click.UsageError("no local workspace yet; run `sosoapi init` or pass --workspace")
    return workspace.id


def _call(tool: str, arguments: dict[str, Any]) -> None:
    from sosoapi.app import Application  # heavy (extractors): only for operations

    settings = settings_from_env()

    async def run() -> dict[str, Any] | ServiceError:
        application = Application(settings)
        async with application.running():
            try:
                outcome = await application.research.call(
                    tool, settings.token, arguments, transport="stdio", fixes=AUTH_FIXES
                )
            except ServiceError as error:
                return error
            return outcome.output.wire()

    result = anyio.run(run)
    if isinstance(result, ServiceError):
        click.echo(f"error ({result.code}): {result.message}", err=True)
        sys.exit(2)
    emit(result)


@main.command()
@click.argument("url")
@click.option("--workspace", "workspace_id", help="default: the local workspace")
@click.option("--kind", type=click.Choice(["url_text", "published_captions"]), default="url_text")
@click.option("--language", default=None)
@click.option("--mutation-id", default=None, help="reuse to read the same receipt again")
def retrieve(
    url: str, workspace_id: str | None, kind: str, language: str | None, mutation_id: str | None
) -> None:
    """Retrieve one public HTTPS source (token from SOSOAPI_TOKEN); JSON receipt out."""
    _workspace_call(
        "sosoapi_research_evidence_retrieve",
        workspace_id,
        {"url": url, "kind": kind, "language": language, "mutation_id": _mutation(mutation_id)},
    )


@main.group()
def corpora() -> None:
    """Seal projects into corpora, and read sealed corpora."""


@corpora.command("get")
@click.argument("corpus_id")
@click.option("--workspace", "workspace_id", help="default: the local workspace")
@click.option("--revision", type=int, default=None)
def corpora_get(corpus_id: str, workspace_id: str | None, revision: int | None) -> None:
    _workspace_call(
        "sosoapi_research_corpora_get", workspace_id, {"id": corpus_id, "revision": revision}
    )


def _workspace_call(tool: str, workspace_id: str | None, arguments: dict[str, Any]) -> None:
    """Call `tool` in the given or local workspace, dropping options left unset."""
    given = {k: v for k, v in arguments.items() if v not in (None, [], ())}
    _call(tool, {"workspace_id": workspace_id or _local_workspace(), **given})


def _mutation(mutation_id: str | None) -> str:
    chosen = mutation_id or str(uuid.uuid4())
    click.echo(f"mutation_id: {chosen}", err=True)
    return chosen


WORKSPACE = click.option("--workspace", "workspace_id", help="default: the local workspace")
MUTATION = click.option("--mutation-id", default=None, help="reuse to replay the same write")


@corpora.command("seal")
@click.argument("project_id")
@WORKSPACE
@MUTATION
@click.option("--corpus-id", default=None, help="seal a new revision of this corpus")
@click.option("--max-items", type=int, default=None)
def corpora_seal(
    project_id: str,
    workspace_id: str | None,
    mutation_id: str | None,
    corpus_id: str | None,
    max_items: int | None,
) -> None:
    _workspace_call(
        "sosoapi_research_corpora_seal",
        workspace_id,
        {
            "mutation_id": _mutation(mutation_id),
            "project_id": project_id,
            "corpus_id": corpus_id,
            "max_items": max_items,
        },
    )


@corpora.command("list")
@WORKSPACE
@click.option("--cursor", default=None)
def corpora_list(workspace_id: str | None, cursor: str | None) -> None:
    _workspace_call("sosoapi_research_corpora_list", workspace_id, {"cursor": cursor})


@main.group()
def projects() -> None:
    """Research projects: collect sources, then seal them into corpora."""


@projects.command("create")
@click.argument("title")
@WORKSPACE
@MUTATION
def projects_create(title: str, workspace_id: str | None, mutation_id: str | None) -> None:
    _workspace_call(
        "sosoapi_research_projects_create",
        workspace_id,
        {"mutation_id": _mutation(mutation_id), "title": title},
    )


@projects.command("get")
@click.argument("project_id")
@WORKSPACE
def projects_get(project_id: str, workspace_id: str | None) -> None:
    _workspace_call("sosoapi_research_projects_get", workspace_id, {"project_id": project_id})


@projects.command("list")
@WORKSPACE
@click.option("--cursor", default=None)
def projects_list(workspace_id: str | None, cursor: str | None) -> None:
    _workspace_call("sosoapi_research_projects_list", workspace_id, {"cursor": cursor})


@projects.command("update")
@click.argument("project_id")
@click.argument("title")
@WORKSPACE
@MUTATION
def projects_update(
    project_id: str, title: str, workspace_id: str | None, mutation_id: str | None
) -> None:
    _workspace_call(
        "sosoapi_research_projects_update",
        workspace_id,
        {"mutation_id": _mutation(mutation_id), "project_id": project_id, "title": title},
    )


def _sources_command(name: str, tool: str, note_help: str) -> None:
    """`projects add-sources` and `projects remove-sources`: one shape, two tools."""

    @projects.command(name)
    @click.argument("project_id")
    @WORKSPACE
    @MUTATION
    @click.option("--evidence", "evidence_ids", multiple=True, help="an evidence id (repeatable)")
    @click.option("--note", "notes", multiple=True, help=note_help)
    def command(
        project_id: str,
        workspace_id: str | None,
        mutation_id: str | None,
        evidence_ids: tuple[str, ...],
        notes: tuple[str, ...],
    ) -> None:
        arguments: dict[str, Any] = {
            "workspace_id": workspace_id or _local_workspace(),
            "mutation_id": _mutation(mutation_id),
            "project_id": project_id,
        }
        if evidence_ids or tool.endswith("remove_sources"):  # remove requires the list
            arguments["evidence_ids"] = list(evidence_ids)
        if notes:
            arguments["missing_notes"] = list(notes)
        _call(tool, arguments)


_sources_command(
    "add-sources",
    "sosoapi_research_projects_add_sources",
    "a note on a source that could not be retrieved (repeatable)",
)
_sources_command(
    "remove-sources", "sosoapi_research_projects_remove_sources", "a note to remove, exact text"
)


@main.group()
def evidence() -> None:
    """Read evidence, or upload a local file as evidence."""


@evidence.command("get")
@click.argument("evidence_id")
@WORKSPACE
@click.option("--revision", type=int, default=None)
@click.option("--offset", type=int, default=None, help="read on from here (a previous next_offset)")
@click.option("--length", type=int, default=None, help="at most this many characters (20000)")
def evidence_get(
    evidence_id: str,
    workspace_id: str | None,
    revision: int | None,
    offset: int | None,
    length: int | None,
) -> None:
    _workspace_call(
        "sosoapi_research_evidence_get",
        workspace_id,
        {"evidence_id": evidence_id, "revision": revision, "offset": offset, "length": length},
    )


@evidence.command("list")
@WORKSPACE
@click.option("--kind", type=click.Choice(["url_text", "published_captions"]), default=None)
@click.option("--language", default=None)
@click.option("--cursor", default=None)
def evidence_list(
    workspace_id: str | None, kind: str | None, language: str | None, cursor: str | None
) -> None:
    _workspace_call(
        "sosoapi_research_evidence_list",
        workspace_id,
        {"kind": kind, "language": language, "cursor": cursor},
    )


@evidence.command("upload")
@click.argument("path")
@WORKSPACE
@MUTATION
@click.option("--kind", type=click.Choice(["url_text", "published_captions"]), required=True)
@click.option("--language", default=None)
def evidence_upload(
    path: str, workspace_id: str | None, mutation_id: str | None, kind: str, language: str | None
) -> None:
    """Read a local .vtt, .srt, .txt or .html file as evidence."""
    _workspace_call(
        "sosoapi_research_evidence_upload",
        workspace_id,
        {
            "mutation_id": _mutation(mutation_id),
            "path": str(Path(path).resolve()),
            "kind": kind,
            "language": language,
        },
    )


@main.command()
def whoami() -> None:
    """Show the token's user, scopes, workspaces and roles."""
    _call("sosoapi_whoami", {})
