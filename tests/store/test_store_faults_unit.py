"""The store's one typed fault, and the /mcp door's memory during an outage."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import click
import pytest
import sqlalchemy as sa

from sosoapi.auth.tokens import Principal
from sosoapi.cli.maintenance import parse_duration
from sosoapi.contract.errors import ServiceError
from sosoapi.mcp import outage
from sosoapi.research.faults import answering_store_faults
from sosoapi.store.database import Database
from sosoapi.store.records import StoreUnavailable
from tests.support.services import free_port


def test_an_unreachable_postgres_is_store_unavailable_without_the_url() -> None:
    db = Database(f"postgresql+psycopg://postgres:secret@127.0.0.1:{free_port()}/nowhere")
    try:
        with pytest.raises(StoreUnavailable) as raised, db.read() as conn:
            conn.execute(sa.text("SELECT 1"))
    finally:
        db.dispose()
    assert "OperationalError" in str(raised.value)
    assert "secret" not in str(raised.value) and "nowhere" not in str(raised.value)
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_an_unopenable_sqlite_file_is_store_unavailable(tmp_path: Path) -> None:
    (tmp_path / "db").mkdir()  # a directory where the file should be
    db = Database(f"sqlite:///{tmp_path / 'db'}")
    try:
        with pytest.raises(StoreUnavailable, match="SQLITE_CANTOPEN"), db.write() as conn:
            conn.execute(sa.text("SELECT 1"))
    finally:
        db.dispose()


def test_integrity_and_programming_errors_pass_through(database_url: str) -> None:
    """A bad statement is a bug to see, never an "unavailable" that tells the caller to
    retry: SQLite raises its "no such table" and syntax errors as OperationalError too."""
    db = Database(database_url)
    try:
        with db.write() as conn:
            conn.execute(sa.text("CREATE TABLE t (id INTEGER PRIMARY KEY)"))
            conn.execute(sa.text("INSERT INTO t VALUES (1)"))
        with pytest.raises(sa.exc.IntegrityError), db.write() as conn:
            conn.execute(sa.text("INSERT INTO t VALUES (1)"))
        for mistake in ("SELECT * FROM no_such_table", "SELEKT 1", "SELECT no_such_column FROM t"):
            with pytest.raises(sa.exc.DBAPIError) as raised, db.read() as conn:
                conn.execute(sa.text(mistake))
            assert not isinstance(raised.value, StoreUnavailable), mistake
    finally:
        db.dispose()


def test_the_service_words_the_outage_once() -> None:
    with pytest.raises(ServiceError) as raised, answering_store_faults():
        raise StoreUnavailable("OperationalError")
    assert raised.value.code == "unavailable" and raised.value.http_status == 503
    assert "database is unavailable" in raised.value.message
    assert "same mutation_id" in raised.value.message


def _principal(user: str) -> Principal:
    return Principal(
        token_id=str(uuid.uuid4()),
        user_id=user,
        scopes=frozenset({"agent:research"}),
        expires_at=None,
    )


def test_mcp_door_admits_only_recently_verified_tokens_during_an_outage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recent = outage.RecentTokens()
    recent.remember("known", _principal("user"))
    remembered = recent.during_outage("known")
    assert remembered is not None and remembered.user_id == "user"
    assert recent.during_outage("stranger") is None
    assert recent.during_outage(None) is None
    later = time.monotonic() + outage.REMEMBER_SECONDS + 1
    monkeypatch.setattr(outage.time, "monotonic", lambda: later)
    assert recent.during_outage("known") is None


def test_mcp_door_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outage, "REMEMBER_AT_MOST", 3)
    recent = outage.RecentTokens()
    for name in ("a", "b", "c", "d"):
        recent.remember(name, _principal(name))
    assert recent.during_outage("a") is None  # the oldest went first
    assert recent.during_outage("d") is not None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30d", 30 * 86400), ("12h", 43200), ("90m", 5400), ("45s", 45), ("2w", 1209600)],
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text).total_seconds() == seconds


@pytest.mark.parametrize("text", ["", "30", "d30", "1.5d", "-1d", "30 days", "3y"])
def test_bad_durations_name_the_option_and_the_form(text: str) -> None:
    with pytest.raises(click.BadParameter) as raised:
        parse_duration(text)
    assert raised.value.param_hint == "--older-than" and "30d" in raised.value.message
