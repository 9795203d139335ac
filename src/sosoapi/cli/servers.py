"""Running the servers, and creating the local workspace."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import anyio
import click

from sosoapi.cli.common import admin_session, emit, main, settings_from_env
from sosoapi.clock import utcnow
from sosoapi.config import PROFILES, Settings, hand_to_serve_workers, serve_worker_options
from sosoapi.lifeline import end_with_parent
from sosoapi.startup import collector_paused

if TYPE_CHECKING:
    from fastapi import FastAPI


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="the address to listen on")
@click.option("--port", default=8080, show_default=True, type=int, help="the port to listen on")
@click.option(
    "--profile", type=click.Choice(PROFILES), default=None, help="default: SOSOAPI_PROFILE or full"
)
@click.option(
    "--public-url",
    default=None,
    help="the URL clients use to reach this server (names /mcp in the auth metadata); "
    "default: SOSOAPI_PUBLIC_URL",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="server processes sharing the port and the database (leases keep them honest)",
)
def serve(host: str, port: int, profile: str | None, public_url: str | None, workers: int) -> None:
    """Serve the HTTP API, MCP at /mcp and the review console at /console (health at /healthz)."""
    import uvicorn

    settings = settings_from_env(profile)
    if workers > 1:
        _serve_processes(settings.database_url, host, port, settings.profile, public_url, workers)
        return
    app = _http_app(host, port, settings.profile, public_url, settings)
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")


def _http_app(
    host: str, port: int, profile: str, public_url: str | None, settings: Settings | None = None
) -> FastAPI:
    """The app `serve` runs, imported and built with the collector paused (startup.py)."""
    with collector_paused():
        from sosoapi.app import http_app

        settings = settings or settings_from_env(profile)
        return http_app(settings, host=host, port=port, public_url=public_url)


def _serve_processes(
    database_url: str, host: str, port: int, profile: str, public_url: str | None, workers: int
) -> None:
    """`workers` uvicorn processes on one socket; each builds its own application.

    Migrations run once here, before any worker starts. Each server gets its share of the
    cores as parsing processes unless SOSOAPI_PARSE_WORKERS says otherwise. Each ends
    when this process does, even killed (`worker_app`).
    """
    import uvicorn

    from sosoapi.store.store import Store

    Store(database_url).close()
    hand_to_serve_workers([host, port, profile, public_url, os.getpid()], workers)
    uvicorn.run(
        "sosoapi.cli.servers:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        timeout_worker_healthcheck=60,  # a worker imports the extractors before it answers
        log_level="warning",
        lifespan="on",
    )


def worker_app() -> FastAPI:
    """The application of one `serve --workers` process (uvicorn imports this).

    It is killed when the supervisor ends: uvicorn's workers outlive a supervisor killed
    with SIGKILL, answering on its port for good (the shared socket stays open)."""
    host, port, profile, public_url, supervisor = serve_worker_options()
    end_with_parent(supervisor)
    return _http_app(host, port, profile, public_url)


@main.command("mcp")
@click.option(
    "--profile", type=click.Choice(PROFILES), default=None, help="default: SOSOAPI_PROFILE or full"
)
def mcp_command(profile: str | None) -> None:
    """Serve MCP over stdio; identity from SOSOAPI_TOKEN."""
    with collector_paused():  # the application's and the MCP SDK's imports (startup.py)
        from sosoapi.app_stdio import stdio_main

    anyio.run(stdio_main, settings_from_env(profile))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="print {workspace_id, token} as JSON")
@click.option(
    "--new-token",
    is_flag=True,
    help="the workspace exists: mint another owner token anyway (the old ones stay valid)",
)
def init(as_json: bool, new_token: bool) -> None:
    """Create the local workspace and its owner token (shown once). Run again, it says the
    workspace exists and mints nothing unless --new-token."""
    with admin_session() as admin:
        existing = admin.local_workspace()
        if existing is not None and not new_token:
            if as_json:
                emit({"workspace_id": existing.id, "token": None, "existed": True})
            else:
                click.echo(
                    f"the local workspace {existing.id} exists (its database: "
                    f"{settings_from_env().database_url}); no token minted. `sosoapi init "
                    "--new-token` mints another owner token, `sosoapi tokens list` shows them."
                )
            return
        workspace, minted = admin.init_local(utcnow())
    if as_json:
        emit({"workspace_id": workspace.id, "token": minted.token, "existed": existing is not None})
    else:
        click.echo(f"workspace_id: {workspace.id}\ntoken (shown once): {minted.token}")
