"""Real processes' fixtures: `sosoapi serve`, `sosoapi mcp`, and the CLI, on a SQLite home
or PostgreSQL. A plugin (tests/conftest.py's `pytest_plugins`), so the tests of every
folder that runs a real process (tests/surfaces, tests/cli, tests/auth, tests/api, ...)
reach them.

`served` is one `sosoapi serve` per store per test module, each test with a workspace,
owner and token of its own in it. A test that must own its server (it restarts or kills
it, counts the server's own state such as a rate limit, or works on the local workspace
through the CLI) is marked `own_server` and gets one started for it alone, as before.
A module that needs its server configured otherwise overrides `server_env` (servers are
keyed by their environment, so each setting gets a server of its own).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from sosoapi.auth.admin import Admin
from sosoapi.clock import utcnow
from sosoapi.config import Settings
from sosoapi.store.settings import sqlite_url
from sosoapi.store.store import Store
from tests.support.origin import HTTPSOrigin
from tests.support.services import TEST_POOL_SIZE, ServeProcess
from tests.support.templates import PostgresPool

# What every `sosoapi` a test starts runs with. No pause between two fetches from the test
# origin (the default 0.2 s, `SOSOAPI_EGRESS_PER_ORIGIN_MIN_INTERVAL`), as the in-process
# `application` (services.make_settings): it made each retrieval over a server wait, 3 s a
# test of 15 pages; the pacing itself is proven in process (tests/egress/test_gate.py).
QUICK = {"SOSOAPI_LOG_LEVEL": "WARNING", "SOSOAPI_EGRESS_PER_ORIGIN_MIN_INTERVAL": "0"}


class SharedServers:
    """A module's homes, databases and servers, one per store, shared by its tests."""

    def __init__(self, root: Path, stack: ExitStack) -> None:
        self.root = root
        self.stack = stack
        self.envs: dict[str, dict[str, str]] = {}
        self.servers: dict[tuple[tuple[str, str], ...], ServeProcess] = {}

    def env(self, store: str, egress: dict[str, str], pool: PostgresPool | None) -> dict[str, str]:
        """The module's environment for `store` (its home, and its database if PostgreSQL)."""
        if store not in self.envs:
            home = self.root / store
            env = {"SOSOAPI_HOME": str(home), **QUICK, **egress}
            if pool is not None:
                env["SOSOAPI_DATABASE_URL"] = self.stack.enter_context(pool.lease())
                env["SOSOAPI_DATABASE_POOL_SIZE"] = str(TEST_POOL_SIZE)
            else:
                env["SOSOAPI_DATABASE_URL"] = sqlite_url(home)
            self.envs[store] = env
        return self.envs[store]

    def shares(self, env: dict[str, str]) -> bool:
        return any(env.get("SOSOAPI_HOME") == e["SOSOAPI_HOME"] for e in self.envs.values())

    def server(self, env: dict[str, str]) -> ServeProcess:
        """The running server for `env` (its per-test workspace and token aside)."""
        key = tuple(sorted((k, v) for k, v in env.items() if k not in PER_TEST))
        if key not in self.servers:
            self.servers[key] = ServeProcess(env).start()
            self.stack.callback(self.servers[key].stop)
        return self.servers[key]


PER_TEST = {"WORKSPACE_ID", "SOSOAPI_TOKEN"}


@pytest.fixture(scope="module")
def shared_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServers]:
    with ExitStack() as stack:  # servers stop before their databases are given back
        yield SharedServers(tmp_path_factory.mktemp("served"), stack)


def _shared(request: pytest.FixtureRequest) -> bool:
    return "served" in request.fixturenames and not request.node.get_closest_marker("own_server")


@pytest.fixture
def server_env() -> dict[str, str]:
    """Settings a module gives its `sosoapi` beyond the home, database and egress (none by
    default); a module overrides this fixture to set them."""
    return {}


@pytest.fixture(params=["sqlite", "postgres"])
def process_env(
    request: pytest.FixtureRequest, tmp_path: Path, origin: HTTPSOrigin, server_env: dict[str, str]
) -> dict[str, str]:
    """The environment `sosoapi` runs with on each store: the module's shared one for a
    test of the shared `served`, else a home (and PostgreSQL schema) of the test's own;
    `server_env` on top."""
    postgres = request.param == "postgres"
    if _shared(request):
        pool = request.getfixturevalue("postgres_databases") if postgres else None
        shared: SharedServers = request.getfixturevalue("shared_servers")
        return {**shared.env(request.param, origin.egress_env(), pool), **server_env}
    env = {"SOSOAPI_HOME": str(tmp_path / "home"), **QUICK, **origin.egress_env()}
    if postgres:
        env["SOSOAPI_DATABASE_URL"] = request.getfixturevalue("postgres_url")
        env["SOSOAPI_DATABASE_POOL_SIZE"] = str(TEST_POOL_SIZE)
    return {**env, **server_env}


@pytest.fixture
def initialised(request: pytest.FixtureRequest, process_env: dict[str, str]) -> dict[str, str]:
    """The environment plus a workspace and its owner's token, made in this process (the
    `init` command itself is tested in test_crash_and_cli.py and test_install.py, and a
    subprocess here cost a second of CPU per test): the local workspace, as `sosoapi init`
    makes it, or on a shared server a workspace of the test's own."""
    store = Store(Settings.from_env(process_env).database_url)
    now = utcnow()
    try:
        admin = Admin(store.auth)
        if _shared(request) and request.getfixturevalue("shared_servers").shares(process_env):
            workspace = admin.create_workspace(f"test {request.node.name}", now, research=True)
            minted = admin.mint(admin.create_member(workspace.id, "owner", "owner", now), now)
        else:
            workspace, minted = admin.init_local(now)
    finally:
        store.close()
    return {**process_env, "WORKSPACE_ID": workspace.id, "SOSOAPI_TOKEN": minted.token}


@pytest.fixture
def served(request: pytest.FixtureRequest, initialised: dict[str, str]) -> Iterator[ServeProcess]:
    """`sosoapi serve` for `initialised`: the module's (see the module's docstring), or, for
    an `own_server` test or one whose `process_env` is its own, one for the test alone."""
    if _shared(request):
        shared: SharedServers = request.getfixturevalue("shared_servers")
        if shared.shares(initialised):
            yield shared.server(initialised)
            return
    with ServeProcess(initialised) as server:
        yield server
