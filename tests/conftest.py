"""Shared fixtures: databases (SQLite and PostgreSQL), a real HTTPS origin, the application.

What is costly is made once per session (per xdist worker) and handed to each test fresh:
one trustme CA and one HTTPS origin, emptied back to the real pages before every test; one
migrated database per store, copied for every test that builds an Application.
"""

from __future__ import annotations

import gc
import os
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
import trustme
from hypothesis import HealthCheck, settings

from sosoapi.application import Application
from sosoapi.store.settings import sqlite_url
from tests.support.ci import missing
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.pages import real_pages
from tests.support.postgres import private_schema
from tests.support.services import make_settings, owner_token
from tests.support.templates import PostgresPool, copy_sqlite, migrated_postgres, migrated_sqlite

pytest_plugins = ["tests.support.served"]  # process_env, initialised, served

POSTGRES_FIXTURES = {"postgres_base_url", "postgres_url"}
BUDGET_SECONDS = 5.0  # a test slower than this carries `slow(reason=...)` (docs/testing.md)
_over_budget: list[tuple[float, str]] = []

# Hypothesis's per-example deadline (200 ms) and its too-slow health check are timed
# asserts: on a loaded machine they failed tests whose behaviour was right. A property test
# asserts what holds; speed is measured in bench/ (docs/testing.md).
settings.register_profile("sosoapi", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sosoapi")


def pytest_configure() -> None:
    """Freeze what the plugins and this conftest imported (`pytest_collection`)."""
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_collection() -> Generator[None, object, object]:
    """No cyclic garbage collection while the test modules are imported, then everything
    they built is frozen, kept out of every later collection: the collector walked these
    few million long-lived objects again and again, and five times more at pytest's exit,
    1.6 s of CPU in every process (docs/testing.md, "The budget")."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        gc.enable()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Note a test whose run (setup, call or teardown) took over the budget unmarked; with
    xdist this runs in the controller, on every worker's reports."""
    if report.duration > BUDGET_SECONDS and "slow" not in report.keywords:
        _over_budget.append((report.duration, f"{report.when:8} {report.nodeid}"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """List the unmarked tests over the budget: a report, never a failure (a loaded
    machine is slower, and a timed assertion would flake); then the order's seed."""
    if _over_budget:
        terminalreporter.section(f"over the {BUDGET_SECONDS:.0f} s budget, not marked slow")
        for seconds, what in sorted(_over_budget, reverse=True):
            terminalreporter.write_line(f"{seconds:6.2f}s {what}")
    seed = terminalreporter.config.getoption("randomly_seed", None)
    if isinstance(seed, int):  # `-q` hides pytest-randomly's header: the order's seed here
        terminalreporter.write_line(f"test order: --randomly-seed={seed} repeats it")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that runs on PostgreSQL `postgres`, so `-m postgres` selects them:
    those asking for a PostgreSQL fixture, and the `postgres` case of the fixtures that run
    a test on both databases (`database_url`, `process_env`)."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        if fixtures & POSTGRES_FIXTURES or "postgres" in params.values():
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session")
def postgres_base_url() -> str:
    url = os.environ.get("SOSOAPI_TEST_POSTGRES_URL")
    problem = None
    if not url:
        problem = "SOSOAPI_TEST_POSTGRES_URL is not set"
    else:
        try:
            engine = sa.create_engine(url)
            with engine.connect() as conn:
                conn.execute(sa.text("SELECT 1"))
            engine.dispose()
        except sa.exc.OperationalError as exc:
            problem = f"PostgreSQL at SOSOAPI_TEST_POSTGRES_URL is unreachable: {exc}"
    if problem:
        missing(problem, "CI requires PostgreSQL")
    assert url is not None
    return url


@pytest.fixture
def postgres_url(postgres_base_url: str) -> Iterator[str]:
    """A private schema per test, so tests never see each other's rows."""
    with private_schema(postgres_base_url) as url:
        yield url


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated once per session, copied for each Application."""
    return migrated_sqlite(tmp_path_factory.mktemp("template"))


@pytest.fixture(scope="session")
def postgres_databases(postgres_base_url: str) -> Iterator[PostgresPool]:
    """Copies of a PostgreSQL database migrated once per session, one per Application."""
    with migrated_postgres(postgres_base_url) as template:
        pool = PostgresPool(postgres_base_url, template)
        try:
            yield pool
        finally:
            pool.close()


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of the test's own on each store: empty, or (for a test that builds the
    `application`) a copy of the migrated template, which is what the Application's own
    start would have made of it."""
    migrated = "application" in request.fixturenames
    if request.param == "sqlite":
        if migrated:
            yield copy_sqlite(request.getfixturevalue("sqlite_template"), tmp_path / "db")
        else:
            yield sqlite_url(tmp_path / "db")
    elif migrated:
        with request.getfixturevalue("postgres_databases").lease() as url:
            yield url
    else:
        yield request.getfixturevalue("postgres_url")


@pytest.fixture(scope="session")
def _real_pages() -> dict[str, bytes]:
    return {f"/{page.name}": page.html for page in real_pages()}


@pytest.fixture
def pages(_real_pages: dict[str, bytes]) -> dict[str, bytes]:
    return dict(_real_pages)


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    """One certificate authority per session: every test origin's certificate is its."""
    return trustme.CA()


@pytest.fixture(scope="session")
def shared_origin(ca: trustme.CA) -> Iterator[HTTPSOrigin]:
    with HTTPSOrigin(ca=ca) as server:
        yield server


@pytest.fixture
def origin(shared_origin: HTTPSOrigin, pages: dict[str, bytes]) -> HTTPSOrigin:
    """The session's origin serving the real pages alone, its counters at zero: routes a
    test adds are gone before the next test."""
    shared_origin.routes = {path: Route(html) for path, html in pages.items()}
    shared_origin.hits.clear()
    shared_origin.connections = 0
    return shared_origin


@pytest.fixture
def receipt_overrides() -> dict[str, float]:
    return {}


@pytest.fixture
async def application(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, receipt_overrides: dict[str, float]
) -> AsyncIterator[Application]:
    settings = make_settings(database_url, tmp_path, origin.egress_env(), **receipt_overrides)
    app = Application(settings)
    async with held_open(app.running()):
        yield app
    app.store.close()


@pytest.fixture
def owner(application: Application) -> tuple[str, str]:
    return owner_token(application)
