"""`sosoapi connect`: print a client's config block, ready to paste.

A stdio client starts `sosoapi mcp` with a minimal environment, so the block carries
the absolute path of this installation's command, the client's own agent token (an
editor with `agent:research`, expiring in 90 days unless --expires-in; connecting the
client again replaces it, so tokens never pile up), and
`SOSOAPI_HOME` (and `SOSOAPI_DATABASE_URL` when set), so the server opens the database
that minted the token. Over HTTP the block names the URL and the bearer header, or with
`--oauth` the URL alone: the client signs the person in through the consent page.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from sosoapi.cli.admin import when
from sosoapi.cli.common import admin_session, main, settings_from_env
from sosoapi.cli.maintenance import parse_duration
from sosoapi.clock import utcnow
from sosoapi.store.settings import sqlite_url

DEFAULT_EXPIRY = "90d"
CLIENTS = ("claude-desktop", "claude-code", "vscode", "cursor", "inspector")
NAME = "sosoapi"
INSPECTOR = "@modelcontextprotocol/inspector"
WHERE = {
    "claude-desktop": "Add to claude_desktop_config.json (Settings > Developer > Edit Config):",
    "claude-code": "Run in a shell:",
    "vscode": "Add to .vscode/mcp.json (or the user mcp.json):",
    "cursor": "Add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project):",
    "inspector": "Run in a shell:",
}


def command_path() -> str:
    """The absolute path of the installed `sosoapi` command (the one running now)."""
    beside = Path(sys.executable).with_name("sosoapi")
    if beside.exists():
        return str(beside.absolute())
    found = shutil.which("sosoapi")
    return str(Path(found).absolute()) if found else str(Path(sys.argv[0]).absolute())


def stdio_block(client: str, command: str, env: dict[str, str]) -> str:
    args = ["mcp"]
    if client == "claude-code":
        flags = " ".join(f"--env {shlex.quote(f'{k}={v}')}" for k, v in env.items())
        return f"claude mcp add --transport stdio {NAME} {flags} -- {shlex.quote(command)} mcp"
    if client == "inspector":
        flags = " ".join(f"-e {shlex.quote(f'{k}={v}')}" for k, v in env.items())
        return f"npx {INSPECTOR} {flags} -- {shlex.quote(command)} mcp"
    server: dict[str, Any] = {"command": command, "args": args, "env": env}
    if client == "vscode":
        return _json({"servers": {NAME: {"type": "stdio", **server}}})
    return _json({"mcpServers": {NAME: server}})


def http_block(client: str, url: str, token: str | None) -> str:
    header = {"Authorization": f"Bearer {token}"} if token else {}
    if client == "claude-code":
        flag = f" --header {shlex.quote(f'Authorization: Bearer {token}')}" if token else ""
        return f"claude mcp add --transport http {NAME} {shlex.quote(url)}{flag}"
    if client == "inspector":
        if token is None:
            return f"npx {INSPECTOR} --transport http --server-url {shlex.quote(url)}"
        flag = shlex.quote(f"Authorization: Bearer {token}")
        return (
            f"npx {INSPECTOR} --cli {shlex.quote(url)} --transport http --header {flag} "
            "--method tools/list"
        )
    if client == "claude-desktop":  # remote servers reach Claude Desktop through mcp-remote
        args = ["-y", "mcp-remote", url]
        env = {}
        if token:
            args += ["--header", "Authorization:${SOSOAPI_AUTH}"]
            env = {"SOSOAPI_AUTH": f"Bearer {token}"}
        server: dict[str, Any] = {"command": "npx", "args": args, **({"env": env} if env else {})}
        return _json({"mcpServers": {NAME: server}})
    remote: dict[str, Any] = {"url": url, **({"headers": header} if header else {})}
    if client == "vscode":
        return _json({"servers": {NAME: {"type": "http", **remote}}})
    return _json({"mcpServers": {NAME: remote}})


def default_upload_root() -> Path:
    """Where a stdio client's uploads come from unless --upload-root: a SosoAPI folder in
    the user's Documents (or in the home directory when there is no Documents)."""
    documents = Path.home() / "Documents"
    return (documents if documents.is_dir() else Path.home()) / "SosoAPI"


def upload_root_for(given: Path | None) -> Path:
    """The absolute upload root for the block, created when it is the default. A client
    starts `sosoapi mcp` in `/`, so without one uploads would be off."""
    root = (given or default_upload_root()).expanduser().absolute()
    broad = {Path("/"), Path.home().absolute()}
    if root in broad:
        raise click.BadParameter(
            f"{root} is the whole disk or the home directory; name a folder that holds only "
            "the files to upload",
            param_hint="--upload-root",
        )
    if given is None:
        root.mkdir(parents=True, exist_ok=True)
    elif not root.is_dir():
        raise click.BadParameter(
            f"{root} is not an existing directory; create it first", param_hint="--upload-root"
        )
    return root


def _json(value: Any) -> str:
    return json.dumps(value, indent=2)


@main.command()
@click.option(
    "--client", type=click.Choice(CLIENTS), required=True, help="the MCP client to configure"
)
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio: the client starts `sosoapi mcp`; http: it reaches a running `sosoapi serve`",
)
@click.option(
    "--url",
    default="http://127.0.0.1:8080/mcp",
    show_default=True,
    help="the /mcp URL of `sosoapi serve` (http only)",
)
@click.option("--oauth", is_flag=True, help="http: the URL alone; the client signs you in")
@click.option(
    "--expires-in",
    default=DEFAULT_EXPIRY,
    show_default=True,
    help="how long the client's token lasts (30d, 12h, 2w...) or `never`",
)
@click.option(
    "--upload-root",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="stdio: the folder the client may upload files from (default: ~/Documents/SosoAPI, "
    "or ~/SosoAPI without a Documents folder; created)",
)
def connect(
    client: str,
    transport: str,
    url: str,
    oauth: bool,
    expires_in: str,
    upload_root: Path | None,
) -> None:
    """Print the config block for an MCP client, with the client's own token (unless
    --oauth): an editor in the local workspace, replacing the token an earlier connect
    gave the same client."""
    if oauth and transport != "http":
        raise click.UsageError("--oauth needs --transport http (stdio has no sign-in)")
    lifetime = None if expires_in == "never" else parse_duration(expires_in, "--expires-in")
    uploads = upload_root_for(upload_root) if transport == "stdio" else None
    if lifetime is not None and not lifetime:
        raise click.BadParameter("a token must last longer than 0", param_hint="--expires-in")
    settings = settings_from_env()
    token = None
    if not oauth:
        seconds = lifetime.total_seconds() if lifetime else None
        with admin_session() as admin:
            minted, replaced = admin.agent_token(client, utcnow(), expires_in=seconds)
        token = minted.token
        expiry = when(minted.record.expires_at) if minted.record.expires_at else "never"
        click.echo(
            f"Token {minted.record.id} for {client}: role editor, scope agent:research, "
            f"expires {expiry}"
            + (f"; replaces {', '.join(replaced)} (revoked)" if replaced else "")
            + ".",
            err=True,
        )
    click.echo(WHERE[client], err=True)
    if transport == "http":
        click.echo(http_block(client, url, token))
        if oauth:
            click.echo(
                "On first use the client opens a sign-in page: paste a token from "
                "`sosoapi tokens create` (or `sosoapi init`) there and approve.",
                err=True,
            )
        return
    env = {"SOSOAPI_TOKEN": token or "", "SOSOAPI_HOME": str(settings.home.absolute())}
    if uploads is not None:
        env["SOSOAPI_UPLOAD_ROOTS"] = str(uploads)
        click.echo(f"Uploads: the client may read files you put in {uploads}", err=True)
    if settings.database_url != sqlite_url(settings.home):  # a shared database: name it too
        env["SOSOAPI_DATABASE_URL"] = settings.database_url
    click.echo(stdio_block(client, command_path(), env))
