"""The `sosoapi` command: run the servers, administer, and call the operations from a shell."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import click

from sosoapi import logs
from sosoapi.auth.admin import Admin
from sosoapi.auth.tokens import RESEARCH_SCOPE
from sosoapi.config import PROFILES, Settings
from sosoapi.contract.errors import ServiceError
from sosoapi.store.store import Store


def _now() -> datetime:
    return datetime.now(UTC)


def _settings(profile: str | None = None) -> Settings:
    try:
        return Settings.from_env(profile=profile)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _emit(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _admin() -> tuple[Store, Admin]:
    store = Store(_settings().database_url)
    return store, Admin(store.auth)


def _checked(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


@click.group()
@click.version_option(package_name="sosoapi")
def main() -> None:
    """SosoAPI Research: safe, bounded, durable public-source retrieval for research agents."""
    logs.configure()


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True, type=int)
@click.option(
    "--profile", type=click.Choice(PROFILES), default=None, help="default: SOSOAPI_PROFILE or full"
)
@click.option(
    "--public-url",
    envvar="SOSOAPI_PUBLIC_URL",
    default=None,
    help="the URL clients use to reach this server (names /mcp in the auth metadata)",
)
def serve(host: str, port: int, profile: str | None, public_url: str | None) -> None:
    """Serve the HTTP API and MCP at /mcp (health at /healthz)."""
    import uvicorn

    from sosoapi.api.http import create_http_app
    from sosoapi.app import Application

    settings = _settings(profile)
    app = create_http_app(
        Application(settings),
        host=host,
        port=port,
        profile=settings.profile,
        public_url=public_url,
    )
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")


@main.command("mcp")
@click.option(
    "--profile", type=click.Choice(PROFILES), default=None, help="default: SOSOAPI_PROFILE or full"
)
def mcp_command(profile: str | None) -> None:
    """Serve MCP over stdio; identity from SOSOAPI_TOKEN."""
    from sosoapi.app import Application
    from sosoapi.mcp.stdio import serve_stdio

    settings = _settings(profile)
    anyio.run(serve_stdio, Application(settings), settings.profile)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="print {workspace_id, token} as JSON")
def init(as_json: bool) -> None:
    """Create the local workspace once and mint a new owner token (shown once)."""
    store, admin = _admin()
    workspace, minted = admin.init_local(_now())
    store.close()
    if as_json:
        _emit({"workspace_id": workspace.id, "token": minted.token})
    else:
        click.echo(f"workspace_id: {workspace.id}\ntoken (shown once): {minted.token}")


@main.group()
def workspaces() -> None:
    """Create and list workspaces, manage members and the research feature."""


@workspaces.command("list")
def workspaces_list() -> None:
    store, _ = _admin()
    _emit(
        [
            {
                "id": w.id,
                "name": w.name,
                "research_enabled": w.research_enabled,
                "local": w.is_local,
            }
            for w in store.auth.list_workspaces()
        ]
    )


@workspaces.command("create")
@click.argument("name")
@click.option("--research/--no-research", default=True, show_default=True)
def workspaces_create(name: str, research: bool) -> None:
    store, _ = _admin()
    workspace = store.auth.create_workspace(name, _now(), research_enabled=research)
    _emit({"id": workspace.id, "name": workspace.name, "research_enabled": research})


def _set_research(workspace_id: str, enabled: bool) -> None:
    store, _ = _admin()
    if not store.auth.set_research_enabled(workspace_id, enabled):
        raise click.UsageError(
            f"workspace {workspace_id} does not exist; see `sosoapi workspaces list`"
        )
    _emit({"id": workspace_id, "research_enabled": enabled})


@workspaces.command("enable-research")
@click.argument("workspace_id")
def workspaces_enable(workspace_id: str) -> None:
    _set_research(workspace_id, True)


@workspaces.command("disable-research")
@click.argument("workspace_id")
def workspaces_disable(workspace_id: str) -> None:
    _set_research(workspace_id, False)


@workspaces.command("add-member")
@click.argument("workspace_id")
@click.option("--user", "user_id", help="an existing user id; omit to create a user")
@click.option("--name", default="member", show_default=True, help="name of a new user")
@click.option("--role", type=click.Choice(["owner", "editor", "viewer"]), required=True)
def workspaces_add_member(workspace_id: str, user_id: str | None, name: str, role: str) -> None:
    _, admin = _admin()
    if user_id:
        _checked(lambda: admin.add_member(workspace_id, user_id, role, _now()))
    else:
        user_id = _checked(lambda: admin.create_member(workspace_id, name, role, _now()))
    _emit({"workspace_id": workspace_id, "user_id": user_id, "role": role})


@main.group()
def tokens() -> None:
    """Mint, list and revoke bearer tokens (a token is shown once)."""


@tokens.command("create")
@click.option("--user", "user_id", help="the user the token speaks for")
@click.option(
    "--workspace", "workspace_id", help="with --role: create a new member and mint for it"
)
@click.option("--role", type=click.Choice(["owner", "editor", "viewer"]))
@click.option("--name", default="member", show_default=True)
@click.option("--scope", "scopes", multiple=True, default=[RESEARCH_SCOPE], show_default=True)
@click.option("--no-scope", is_flag=True, help="mint a token with no scopes (for testing refusals)")
@click.option("--expires-in", type=float, default=None, help="seconds until the token expires")
@click.option("--label", default="")
def tokens_create(
    user_id: str | None,
    workspace_id: str | None,
    role: str | None,
    name: str,
    scopes: tuple[str, ...],
    no_scope: bool,
    expires_in: float | None,
    label: str,
) -> None:
    _, admin = _admin()
    if user_id is None:
        if not (workspace_id and role):
            raise click.UsageError("give --user, or --workspace with --role to create a member")
        user_id = _checked(lambda: admin.create_member(workspace_id, name, role, _now()))
    chosen = frozenset() if no_scope else frozenset(scopes)
    minted = _checked(
        lambda: admin.mint(user_id, _now(), scopes=chosen, label=label, expires_in=expires_in)
    )
    _emit(
        {
            "id": minted.record.id,
            "user_id": user_id,
            "token": minted.token,
            "scopes": sorted(chosen),
        }
    )


@tokens.command("list")
def tokens_list() -> None:
    store, _ = _admin()
    _emit(
        [
            {
                "id": t.id,
                "user_id": t.user_id,
                "label": t.label,
                "scopes": sorted(t.scopes),
                "created_at": t.created_at.isoformat(),
                "expires_at": t.expires_at.isoformat() if t.expires_at else None,
                "revoked": t.revoked_at is not None,
            }
            for t in store.auth.list_tokens()
        ]
    )


@tokens.command("revoke")
@click.argument("token_id")
def tokens_revoke(token_id: str) -> None:
    store, _ = _admin()
    if not store.auth.revoke_token(token_id, _now()):
        raise click.UsageError(f"token {token_id} does not exist or is already revoked")
    _emit({"id": token_id, "revoked": True})


def _local_workspace(settings: Settings) -> str:
    store = Store(settings.database_url)
    workspace = store.auth.local_workspace()
    store.close()
    if workspace is None:
        raise click.UsageError("no local workspace yet; run `sosoapi init` or pass --workspace")
    return workspace.id


def _call(tool: str, arguments: dict[str, Any]) -> None:
    from sosoapi.app import Application  # heavy (extractors): only for operations

    settings = _settings()

    async def run() -> dict[str, Any] | ServiceError:
        application = Application(settings)
        async with application.running():
            try:
                outcome = await application.research.call(
                    tool, settings.token, arguments, transport="stdio"
                )
            except ServiceError as error:
                return error
            return outcome.output.wire()

    result = anyio.run(run)
    if isinstance(result, ServiceError):
        click.echo(f"error ({result.code}): {result.message}", err=True)
        sys.exit(2)
    _emit(result)


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
    settings = _settings()
    mutation_id = mutation_id or str(uuid.uuid4())
    click.echo(f"mutation_id: {mutation_id}", err=True)
    arguments: dict[str, Any] = {
        "url": url,
        "kind": kind,
        "workspace_id": workspace_id or _local_workspace(settings),
        "mutation_id": mutation_id,
    }
    if language is not None:
        arguments["language"] = language
    _call("sosoapi_research_evidence_retrieve", arguments)


@main.group()
def corpora() -> None:
    """Read sealed corpora."""


@corpora.command("get")
@click.argument("corpus_id")
@click.option("--workspace", "workspace_id", help="default: the local workspace")
@click.option("--revision", type=int, default=None)
def corpora_get(corpus_id: str, workspace_id: str | None, revision: int | None) -> None:
    settings = _settings()
    arguments: dict[str, Any] = {
        "workspace_id": workspace_id or _local_workspace(settings),
        "id": corpus_id,
    }
    if revision is not None:
        arguments["revision"] = revision
    _call("sosoapi_research_corpora_get", arguments)


def _workspace_call(tool: str, workspace_id: str | None, arguments: dict[str, Any]) -> None:
    """Call `tool` in the given or local workspace, dropping options left unset."""
    settings = _settings()
    given = {k: v for k, v in arguments.items() if v not in (None, [], ())}
    _call(tool, {"workspace_id": workspace_id or _local_workspace(settings), **given})


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
        settings = _settings()
        arguments: dict[str, Any] = {
            "workspace_id": workspace_id or _local_workspace(settings),
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
def evidence_get(evidence_id: str, workspace_id: str | None, revision: int | None) -> None:
    _workspace_call(
        "sosoapi_research_evidence_get",
        workspace_id,
        {"evidence_id": evidence_id, "revision": revision},
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


if __name__ == "__main__":
    main()
