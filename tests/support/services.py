"""Building the application under test, and running `sosoapi`.

`cli` runs a command in this process (`sosoapi.testing.commands`); `cli_process` runs it
as a real process, for the tests that are about the process (the CLI's smoke set:
tests/test_install.py, `init` in tests/surfaces/test_crash_and_cli.py). `ServeProcess` is
`sosoapi serve` as a process (`sosoapi.testing.processes`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import httpx

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.config import Settings, egress_from_env
from sosoapi.contract.schemas import all_tools
from sosoapi.research.retrieval.settings import ReceiptSettings
from sosoapi.testing.commands import cli
from sosoapi.testing.processes import (
    SOSOAPI,
    STARTUP_SECONDS,
    ServeProcess,
    free_port,
    start_all,
    stop_all,
)
from sosoapi.testing.processes import cli as cli_process

__all__ = [
    "SOSOAPI",
    "STARTUP_SECONDS",
    "ServeProcess",
    "api_caller",
    "cli",
    "cli_process",
    "free_port",
    "make_settings",
    "owner_token",
    "start_all",
    "stop_all",
]


# PostgreSQL connections per test application or server process: three test workers each
# hold a module's shared servers, an application and sometimes a server of a test's own at
# once, and the shared server allows 100 clients in all (the product's default is 10).
TEST_POOL_SIZE = 4


def make_settings(
    database_url: str,
    home: Path,
    egress_env: Mapping[str, str] | None = None,
    **receipts: float,
) -> Settings:
    egress = egress_from_env(dict(egress_env or {}))
    egress = replace(egress, per_origin_min_interval=0.0, per_origin_concurrency=64)
    return Settings(
        database_url=database_url,
        database_pool_size=TEST_POOL_SIZE,
        home=home,
        egress=egress,
        receipts=ReceiptSettings(**{"wait_budget_seconds": 10.0, **receipts}),
        upload_roots=(home,),
    )


def owner_token(application: Application) -> tuple[str, str]:
    """(workspace_id, token) of the local workspace's owner."""
    workspace, minted = Admin(application.store.auth).init_local(datetime.now(UTC))
    return workspace.id, minted.token


def api_caller(
    http: httpx.AsyncClient,
) -> Callable[[str, dict], Awaitable[tuple[dict, int | None]]]:
    """A scenario's `call(tool, arguments)` over the HTTP API: body and Corpus-Revision."""
    operations = {n: c["api_operation"] for n, c in all_tools().items() if "api_operation" in c}

    async def call(tool_name: str, arguments: dict) -> tuple[dict, int | None]:
        response = await http.post(operations[tool_name], json=arguments)
        assert response.status_code == 200, response.text
        revision = response.headers.get("corpus-revision")
        return response.json(), int(revision) if revision else None

    return call
