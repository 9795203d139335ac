"""Real processes: `sosoapi serve`, `sosoapi mcp`, and the CLI, on a SQLite home or PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sosoapi.auth.admin import Admin
from sosoapi.clock import utcnow
from sosoapi.config import Settings
from sosoapi.store.store import Store
from tests.support.origin import HTTPSOrigin
from tests.support.services import ServeProcess


@pytest.fixture(params=["sqlite", "postgres"])
def process_env(
    request: pytest.FixtureRequest, tmp_path: Path, origin: HTTPSOrigin
) -> dict[str, str]:
    env = {
        "SOSOAPI_HOME": str(tmp_path / "home"),
        "SOSOAPI_LOG_LEVEL": "WARNING",
        **origin.egress_env(),
    }
    if request.param == "postgres":
        env["SOSOAPI_DATABASE_URL"] = request.getfixturevalue("postgres_url")
    return env


@pytest.fixture
def initialised(process_env: dict[str, str]) -> dict[str, str]:
    """The environment plus the local workspace and an owner token, made as `sosoapi init`
    makes them (`Admin.init_local` on the configured store), in this process: the `init`
    command itself is tested in test_crash_and_cli.py and test_install.py, and a
    subprocess here cost a second of CPU per test."""
    store = Store(Settings.from_env(process_env).database_url)
    try:
        workspace, minted = Admin(store.auth).init_local(utcnow())
    finally:
        store.close()
    return {**process_env, "WORKSPACE_ID": workspace.id, "SOSOAPI_TOKEN": minted.token}


@pytest.fixture
def served(initialised: dict[str, str]) -> Iterator[ServeProcess]:
    with ServeProcess(initialised) as server:
        yield server
