"""The embedded store's files are private whatever the umask: SOSOAPI_HOME 0700, the
database and its WAL, shared-memory and backup files 0600; a server started over files
others can read says so, naming the path and the fix.

SQLite only: PostgreSQL keeps no files in SOSOAPI_HOME.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sosoapi.application import Application
from sosoapi.store.settings import SQLITE_FILE, sqlite_url
from sosoapi.store.store import Store
from tests.support.lifespan import held_open
from tests.support.services import cli, make_settings

UMASKS = [0o000, 0o002, 0o022]


@contextmanager
def umask(value: int) -> Iterator[None]:
    before = os.umask(value)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_a_new_home_and_its_database_files_are_private(tmp_path: Path, mask: int) -> None:
    home = tmp_path / "home"
    with umask(mask):
        store = Store(sqlite_url(home))  # migrated: a pooled connection keeps the WAL open
        try:
            files = {p.name: mode(p) for p in home.iterdir()}
        finally:
            store.db.dispose()
    assert mode(home) == 0o700
    assert {SQLITE_FILE, SQLITE_FILE + "-wal", SQLITE_FILE + "-shm"} <= set(files)
    assert files == dict.fromkeys(files, 0o600), {k: oct(v) for k, v in files.items()}


@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_backup_is_private_whatever_the_umask(tmp_path: Path, mask: int) -> None:
    env = {"SOSOAPI_HOME": str(tmp_path / "home"), "SOSOAPI_LOG_LEVEL": "WARNING"}
    target = tmp_path / "copy.sqlite3"
    with umask(mask):  # the children inherit it
        assert cli(["init", "--json"], env).returncode == 0
        done = cli(["backup", str(target)], env)
    assert done.returncode == 0, done.stderr
    assert mode(target) == 0o600
    assert mode(tmp_path / "home") == 0o700
    assert mode(tmp_path / "home" / SQLITE_FILE) == 0o600


async def test_start_warns_about_files_others_can_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "home"
    Store(sqlite_url(home)).db.dispose()  # made private
    database = home / SQLITE_FILE
    os.chmod(home, 0o755)
    os.chmod(database, 0o644)
    application = Application(make_settings(sqlite_url(home), tmp_path))
    with caplog.at_level(logging.WARNING, logger="sosoapi"):
        async with held_open(application.running()):
            pass
    told = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(str(database) in m and f"chmod 600 {database}" in m for m in told), told
    assert any(f"chmod 700 {home}" in m and "0o755" in m for m in told), told

    os.chmod(home, 0o700)
    for path in home.iterdir():  # the WAL and shared memory, made like the database: 0644
        os.chmod(path, 0o600)
    caplog.clear()
    application = Application(make_settings(sqlite_url(home), tmp_path))
    with caplog.at_level(logging.WARNING, logger="sosoapi"):
        async with held_open(application.running()):
            pass
    assert not [r for r in caplog.records if "other local users" in r.getMessage()]
