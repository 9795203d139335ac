"""The fixtures' machinery: the template databases behind `database_url` (a copy handed to
a test is what a fresh migrated database is, however the test before it left its copy),
the CLI run in process (`cli`), which answers as the process does, and the one verify
context the tests' `httpx` clients share (`shared_verify`)."""

from __future__ import annotations

import json
import logging
import ssl
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sosoapi.auth.admin import Admin
from sosoapi.clock import utcnow
from sosoapi.store.store import Store
from sosoapi.store.tables import metadata
from sosoapi.testing.processes import shared_verify
from tests.support.origin import HTTPSOrigin
from tests.support.services import cli, cli_process
from tests.support.templates import PostgresPool, copy_sqlite

NEXT_ID = "SELECT nextval(pg_get_serial_sequence('project_sources', 'id'))"


def rows(url: str) -> dict[str, int]:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return {
                name: conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                for name, table in metadata.tables.items()
            }
    finally:
        engine.dispose()


def write_some(url: str) -> None:
    """Rows in a few tables, and a sequence drawn from by a write that was rolled back."""
    store = Store(url)
    try:
        Admin(store.auth).init_local(utcnow())
    finally:
        store.close()
    if url.startswith("postgresql"):
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            conn.execute(sa.text(NEXT_ID))
            conn.rollback()
        engine.dispose()


def test_a_postgres_copy_given_back_is_handed_on_as_new(
    postgres_databases: PostgresPool,
) -> None:
    with postgres_databases.lease() as first:
        fresh = rows(first)
        write_some(first)
        assert rows(first) != fresh
    with postgres_databases.lease() as second:
        assert second == first  # the same database, reused rather than made again
        assert rows(second) == fresh == dict.fromkeys(fresh, 0)
        engine = sa.create_engine(second, poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            assert conn.execute(sa.text(NEXT_ID)).scalar_one() == 1  # the sequence restarted
        engine.dispose()
        Store(second).close()  # at head already: nothing left to migrate, nothing fails


def test_a_sqlite_copy_is_migrated_and_apart_from_its_template(
    sqlite_template: Path, tmp_path: Path
) -> None:
    url = copy_sqlite(sqlite_template, tmp_path / "home")
    write_some(url)
    assert rows(url)["workspaces"] == 1
    assert rows(f"sqlite:///{sqlite_template}") == dict.fromkeys(metadata.tables, 0)


def test_the_cli_in_process_answers_as_the_process_does(tmp_path: Path) -> None:
    """`cli` (in process) and `cli_process` give the same exit code, output and error for
    a command that succeeds and one that fails; our loggers are as they were after."""
    sosoapi = logging.getLogger("sosoapi")
    before = (sosoapi.handlers[:], sosoapi.level, sosoapi.propagate)
    answers = []
    for run, home in ((cli, "here"), (cli_process, "there")):
        env = {"SOSOAPI_HOME": str(tmp_path / home), "SOSOAPI_LOG_LEVEL": "WARNING"}
        made = run(["init", "--json"], env)
        refused = run(["tokens", "revoke", "no-such-token"], env)
        answers.append(
            (
                made.returncode,
                sorted(json.loads(made.stdout)),
                refused.returncode,
                refused.stdout,
                refused.stderr,
            )
        )
    assert answers[0] == answers[1]
    assert answers[0][0] == 0 and answers[0][2] != 0
    assert (sosoapi.handlers, sosoapi.level, sosoapi.propagate) == before


async def test_the_cli_in_process_runs_inside_an_async_test(tmp_path: Path) -> None:
    done = cli(["init", "--json"], {"SOSOAPI_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["existed"] is False


@given(st.integers())
def test_a_property_test_has_no_deadline_and_no_too_slow_check(_: int) -> None:
    """Hypothesis's timings are not asserted (docs/testing.md, "Never flaky")."""
    assert settings().deadline is None
    assert HealthCheck.too_slow in settings().suppress_health_check


def test_the_shared_verify_context_is_built_once_and_still_verifies(origin: HTTPSOrigin) -> None:
    """One context for every client (no CA bundle loaded per client), checking certificates
    as httpx's default does: the test origin's, from a CA the bundle lacks, is refused."""
    context = shared_verify()
    assert shared_verify() is context
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    with (
        httpx.Client(verify=context, timeout=10) as http,
        pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"),
    ):
        http.get(origin.url("/", host="127.0.0.1"))
