"""Real processes: `sosoapi serve`, `sosoapi mcp`, and the CLI, on a SQLite home or PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.origin import HTTPSOrigin
from tests.support.services import ServeProcess, cli


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
    """The environment plus the local workspace and an owner token from `sosoapi init --json`."""
    done = cli(["init", "--json"], process_env)
    assert done.returncode == 0, done.stderr
    created = json.loads(done.stdout)
    return {
        **process_env,
        "WORKSPACE_ID": created["workspace_id"],
        "SOSOAPI_TOKEN": created["token"],
    }


@pytest.fixture
def served(initialised: dict[str, str]) -> Iterator[ServeProcess]:
    with ServeProcess(initialised) as server:
        yield server
