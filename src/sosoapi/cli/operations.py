"""The operations from a shell: every verb calls the same service as MCP and HTTP."""

from __future__ import annotations

import sys
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import anyio
import click

from sosoapi.auth.errors import BadToken, Fixes, NoToken
from sosoapi.cli.common import (
    Exit,
    admin_session,
    emit,
    force_option,
    json_option,
    main,
    print_summary,
    settings_from_env,
    written,
)
from sosoapi.contract.errors import ServiceError
from sosoapi.contract.vocabulary import State, Status

if TYPE_CHECKING:
    from sosoapi.research.operation import Outcome

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


USABLE = frozenset({Status.READY, Status.PARTIAL})


def receipt_exit(output: object) -> Exit:
    """A receipt's exit code: OK only when it completed with a usable status."""
    from sosoapi.contract.models import RetrieveOutput  # pydantic models: only for a call

    if not isinstance(output, RetrieveOutput):
        return Exit.OK
    retrieval = output.retrieval
    if retrieval.state != State.COMPLETED or retrieval.result is None:
        return Exit.NOT_COMPLETED
    return Exit.OK if retrieval.result.status in USABLE else Exit.NOT_USABLE


def _call(tool: str, arguments: dict[str, Any], as_json: bool = False) -> None:
    """Call `tool` as the SOSOAPI_TOKEN user; print the result (a summary, or JSON) and
    exit with the code of `Exit` that says how it went."""
    from sosoapi.application import Application  # heavy (extractors): only for operations
    from sosoapi.mcp.presenters import summary

    settings = settings_from_env(one_shot=True)

    async def run() -> Outcome | ServiceError:
        application = Application(settings)
        async with application.running():
            try:
                return await application.research.call(
                    tool, settings.token, arguments, transport="stdio", fixes=AUTH_FIXES
                )
            except ServiceError as error:
                return error

    outcome = anyio.run(run)
    if isinstance(outcome, ServiceError):
        click.echo(f"error ({outcome.code}): {outcome.message}", err=True)
        sys.exit(Exit.REFUSED)
    if as_json:
        emit(outcome.output.wire())
    else:
        url = arguments.get("url") if isinstance(arguments.get("url"), str) else None
        print_summary(
            *summary(outcome.output, outcome.corpus_revision, url, outcome.language_match)
        )
    sys.exit(receipt_exit(outcome.output))


WORKSPACE = click.option("--workspace", "workspace_id", help="default: the local workspace")
MUTATION = click.option("--mutation-id", default=None, help="reuse to replay the same write")
KIND_HELP = "url_text: a page's main text; published_captions: a WebVTT/SubRip caption file"
LANGUAGE_HELP = "a BCP 47 tag (en, pt-BR, ...): the language the text must be in"
CURSOR = click.option("--cursor", default=None, help="next_cursor of the previous page")


@main.command()
@click.argument("url")
@WORKSPACE
@click.option(
    "--kind",
    type=click.Choice(["url_text", "published_captions"]),
    default="url_text",
    show_default=True,
    help=KIND_HELP,
)
@click.option("--language", default=None, help=LANGUAGE_HELP)
@click.option("--mutation-id", default=None, help="reuse to read the same receipt again")
@json_option
def retrieve(
    url: str,
    workspace_id: str | None,
    kind: str,
    language: str | None,
    mutation_id: str | None,
    as_json: bool,
) -> None:
    """Retrieve one public HTTPS source URL (token from SOSOAPI_TOKEN) into a receipt.

    Exits 0 when the receipt completed ready or partial, 3 when it completed with another
    status (blocked, unavailable, ...), 4 when it has not completed (replay the printed
    mutation_id to collect it), 2 when the call was refused.
    """
    _workspace_call(
        "sosoapi_research_evidence_retrieve",
        workspace_id,
        {"url": url, "kind": kind, "language": language, "mutation_id": _mutation(mutation_id)},
        as_json,
    )


@main.group()
def corpora() -> None:
    """Seal projects into corpora, and read sealed corpora."""


@corpora.command("get")
@click.argument("corpus_id")
@WORKSPACE
@click.option("--revision", type=int, default=None, help="default: the latest revision")
@json_option
def corpora_get(
    corpus_id: str, workspace_id: str | None, revision: int | None, as_json: bool
) -> None:
    """Read the sealed corpus CORPUS_ID: the exact evidence revisions it pins."""
    _workspace_call(
        "sosoapi_research_corpora_get",
        workspace_id,
        {"id": corpus_id, "revision": revision},
        as_json,
    )


@corpora.command("export")
@click.argument("corpus_id")
@click.option("--workspace", "workspace_id", help="default: the local workspace")
@click.option("--revision", type=int, default=None, help="default: the latest revision")
@click.option(
    "-o",
    "--output",
    "output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="the .wacz file to write (0600; an existing file only with --force)",
)
@force_option
@json_option
def corpora_export(
    corpus_id: str,
    workspace_id: str | None,
    revision: int | None,
    output: Path,
    force: bool,
    as_json: bool,
) -> None:
    """Write a sealed corpus as a WACZ package (captures, pages, bibliography); open it in
    ReplayWeb.page or pywb. A failed export leaves no file behind."""
    from sosoapi.application import Application  # heavy (extractors): only for operations

    settings = settings_from_env(one_shot=True)
    workspace = workspace_id or _local_workspace()

    async def run(out: IO[bytes]) -> dict[str, Any] | ServiceError:
        application = Application(settings)
        async with application.running():
            try:
                summary = await application.research.export_corpus(
                    settings.token, workspace, corpus_id, revision, out,
                    transport="stdio", fixes=AUTH_FIXES,
                )  # fmt: skip
            except ServiceError as error:
                return error
            return {"path": str(output), **asdict(summary)}

    with written(output, force) as out:
        result = anyio.run(run, out.file)
        if isinstance(result, ServiceError):
            click.echo(f"error ({result.code}): {result.message}", err=True)
            sys.exit(2)
        out.keep()
    if as_json:
        emit(result)
        return
    told = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in result.items() if k != "path")
    click.echo(f"wrote {output} ({told})")


def _workspace_call(
    tool: str, workspace_id: str | None, arguments: dict[str, Any], as_json: bool = False
) -> None:
    """Call `tool` in the given or local workspace, dropping options left unset."""
    given = {k: v for k, v in arguments.items() if v not in (None, [], ())}
    _call(tool, {"workspace_id": workspace_id or _local_workspace(), **given}, as_json)


def _mutation(mutation_id: str | None) -> str:
    chosen = mutation_id or str(uuid.uuid4())
    click.echo(f"mutation_id: {chosen}", err=True)
    return chosen


@corpora.command("seal")
@click.argument("project_id")
@WORKSPACE
@MUTATION
@click.option("--corpus-id", default=None, help="seal a new revision of this corpus")
@click.option(
    "--max-items", type=int, default=None, help="most evidence items to pin (a bounded sample)"
)
@json_option
def corpora_seal(
    project_id: str,
    workspace_id: str | None,
    mutation_id: str | None,
    corpus_id: str | None,
    max_items: int | None,
    as_json: bool,
) -> None:
    """Seal project PROJECT_ID into an immutable corpus (again: a new corpus revision)."""
    _workspace_call(
        "sosoapi_research_corpora_seal",
        workspace_id,
        {
            "mutation_id": _mutation(mutation_id),
            "project_id": project_id,
            "corpus_id": corpus_id,
            "max_items": max_items,
        },
        as_json,
    )


@corpora.command("list")
@WORKSPACE
@CURSOR
@json_option
def corpora_list(workspace_id: str | None, cursor: str | None, as_json: bool) -> None:
    """List the workspace's corpora, newest first."""
    _workspace_call("sosoapi_research_corpora_list", workspace_id, {"cursor": cursor}, as_json)


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
    _workspace_call(
        "sosoapi_research_projects_create",
        workspace_id,
        {"mutation_id": _mutation(mutation_id), "title": title},
        as_json,
    )


@projects.command("get")
@click.argument("project_id")
@WORKSPACE
@json_option
def projects_get(project_id: str, workspace_id: str | None, as_json: bool) -> None:
    """Show project PROJECT_ID: its title, evidence references and missing-source notes."""
    _workspace_call(
        "sosoapi_research_projects_get", workspace_id, {"project_id": project_id}, as_json
    )


@projects.command("list")
@WORKSPACE
@CURSOR
@json_option
def projects_list(workspace_id: str | None, cursor: str | None, as_json: bool) -> None:
    """List the workspace's projects."""
    _workspace_call("sosoapi_research_projects_list", workspace_id, {"cursor": cursor}, as_json)


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
    _workspace_call(
        "sosoapi_research_projects_update",
        workspace_id,
        {"mutation_id": _mutation(mutation_id), "project_id": project_id, "title": title},
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
            "workspace_id": workspace_id or _local_workspace(),
            "mutation_id": _mutation(mutation_id),
            "project_id": project_id,
        }
        if evidence_ids or tool.endswith("remove_sources"):  # remove requires the list
            arguments["evidence_ids"] = list(evidence_ids)
        if notes:
            arguments["missing_notes"] = list(notes)
        _call(tool, arguments, as_json)


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


@main.group()
def evidence() -> None:
    """Read evidence, or upload a local file as evidence."""


@evidence.command("get")
@click.argument("evidence_id")
@WORKSPACE
@click.option("--revision", type=int, default=None, help="default: the latest revision")
@click.option("--offset", type=int, default=None, help="read on from here (a previous next_offset)")
@click.option("--length", type=int, default=None, help="at most this many characters (20000)")
@json_option
def evidence_get(
    evidence_id: str,
    workspace_id: str | None,
    revision: int | None,
    offset: int | None,
    length: int | None,
    as_json: bool,
) -> None:
    """Show evidence EVIDENCE_ID: a window of its text (or caption cues) at one revision."""
    _workspace_call(
        "sosoapi_research_evidence_get",
        workspace_id,
        {"evidence_id": evidence_id, "revision": revision, "offset": offset, "length": length},
        as_json,
    )


@evidence.command("list")
@WORKSPACE
@click.option(
    "--kind",
    type=click.Choice(["url_text", "published_captions"]),
    default=None,
    help="only this kind of evidence",
)
@click.option("--language", default=None, help="only evidence in this language (BCP 47)")
@CURSOR
@json_option
def evidence_list(
    workspace_id: str | None,
    kind: str | None,
    language: str | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """List the workspace's evidence, newest first."""
    _workspace_call(
        "sosoapi_research_evidence_list",
        workspace_id,
        {"kind": kind, "language": language, "cursor": cursor},
        as_json,
    )


@evidence.command("upload")
@click.argument("path")
@WORKSPACE
@MUTATION
@click.option(
    "--kind",
    type=click.Choice(["url_text", "published_captions"]),
    required=True,
    help=KIND_HELP,
)
@click.option("--language", default=None, help=LANGUAGE_HELP)
@json_option
def evidence_upload(
    path: str,
    workspace_id: str | None,
    mutation_id: str | None,
    kind: str,
    language: str | None,
    as_json: bool,
) -> None:
    """Read the local .vtt, .srt, .txt or .html file PATH as evidence (exit codes as
    `retrieve`)."""
    _workspace_call(
        "sosoapi_research_evidence_upload",
        workspace_id,
        {
            "mutation_id": _mutation(mutation_id),
            "path": str(Path(path).resolve()),
            "kind": kind,
            "language": language,
        },
        as_json,
    )


@main.command()
@json_option
def whoami(as_json: bool) -> None:
    """Show the token's user, scopes, workspaces and roles."""
    _call("sosoapi_whoami", {}, as_json)
