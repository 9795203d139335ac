"""Engines, transactions and migrations for SQLite (embedded) and PostgreSQL (shared).

SQLite runs in WAL mode with a busy timeout, and write transactions begin IMMEDIATE so
two writers queue on the lock instead of failing on an upgrade from read to write.

PostgreSQL gets a fixed pool of `pool_size` connections per process and no overflow: a
caller past it waits for a connection instead of opening one more, so a deployment holds
at most instances x processes x pool_size connections. With overflow, three instances
under load opened 120 against a server that allows 100, and the calls that met "too many
clients" failed (docs/deploy.md, "Connections").
"""

from __future__ import annotations

import functools
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, exc, inspect, make_url
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from sosoapi.files import PRIVATE_FILE
from sosoapi.store.faults import operational_faults
from sosoapi.store.settings import DEFAULT_POOL_SIZE

POOL_TIMEOUT_SECONDS = 30.0  # a caller waits this long for a pooled connection, then 503
# A PostgreSQL connection idle for longer is pinged before it is handed out (HikariCP's
# `aliveBypassWindowMs`, 500 ms too); one back in the pool for less is handed out as it is.
PING_AFTER_IDLE_SECONDS = 0.5
Built = TypeVar("Built")


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # Database._connection sends the BEGIN
        cursor = dbapi_conn.cursor()
        for pragma in (
            # only a new file takes it (before its first table): what `purge` frees can then
            # go back to the disk (store/maintenance.py return_space)
            "PRAGMA auto_vacuum=INCREMENTAL",
            "PRAGMA journal_mode=WAL",
            "PRAGMA busy_timeout=15000",
            "PRAGMA synchronous=NORMAL",
            "PRAGMA foreign_keys=ON",
        ):
            cursor.execute(pragma)
        cursor.close()


def _ping_idle_connections(engine: Engine) -> None:
    """SQLAlchemy's `pool_pre_ping`, but only for a connection idle for over
    `PING_AFTER_IDLE_SECONDS`: a retrieval takes a connection 6 to 9 times, and a ping
    each time was a round trip (22 us of the backend's CPU, more of the server's) on a
    connection used a few milliseconds before (bench/README.md, "PostgreSQL's CPU per
    retrieval"). A connection the server dropped while it sat idle (a restart, an idle
    timeout, a proxy) is still found before a statement meets it; a failed ping
    invalidates the pool, as a failed pre-ping did, so the rest are replaced too."""

    def _idle_from_now(_dbapi_conn: Any, record: Any) -> None:
        """A connection just made, or just given back, is idle from now."""
        record.info["returned_at"] = time.monotonic()

    def _handed_out(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get("returned_at", 0.0) < PING_AFTER_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except engine.dialect.loaded_dbapi.Error as error:
            if engine.dialect.is_disconnect(error, dbapi_conn, None):
                raise exc.InvalidatePoolError() from error
            raise

    event.listen(engine.pool, "connect", _idle_from_now)
    event.listen(engine.pool, "checkin", _idle_from_now)
    event.listen(engine.pool, "checkout", _handed_out)


_SQLITE_BEGIN = {"IMMEDIATE": "BEGIN IMMEDIATE", None: "BEGIN DEFERRED"}
PRIVATE_FOLDER = 0o700
SQLITE_COMPANIONS = ("", "-wal", "-shm", "-journal")


def private_file(path: Path) -> None:
    """Create `path` empty and 0600 whatever the umask (an existing file is left alone)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, PRIVATE_FILE)
    finally:
        os.close(fd)


def _make_private(url: str) -> None:
    """The folder (0700) and file (0600) of a SQLite database, made on first open.

    They hold every evidence and every token and secret hash. SQLite creates the WAL,
    shared-memory and journal files with the database file's own mode, so a 0600 database
    keeps them 0600 too, under any umask.
    """
    database = make_url(url).database
    if not database or database == ":memory:":
        return
    path = Path(database)
    if not path.parent.exists():
        path.parent.mkdir(parents=True, mode=PRIVATE_FOLDER, exist_ok=True)
        os.chmod(path.parent, PRIVATE_FOLDER)
    private_file(path)


def exposed_files(url: str) -> list[tuple[Path, int]]:
    """The SQLite folder and files that other local users can read or enter, with modes."""
    database = make_url(url).database
    if not url.startswith("sqlite") or not database or database == ":memory:":
        return []
    path = Path(database)
    found = [path.parent, *(path.with_name(path.name + s) for s in SQLITE_COMPANIONS)]
    exposed = []
    for candidate in found:
        try:
            mode = stat.S_IMODE(candidate.stat().st_mode)
        except FileNotFoundError:
            continue
        if mode & 0o077:
            exposed.append((candidate, mode))
    return exposed


_REVISION = re.compile(r'^(down_)?revision = "(\w+)"$', re.MULTILINE)


@functools.cache
def head_revision() -> str:
    """The newest migration's revision: the one no other migration comes down from
    (read from the scripts' text, as Alembic would, without importing it)."""
    revisions: set[str] = set()
    downs: set[str] = set()
    folder = resources.files("sosoapi.store") / "migrations" / "versions"
    for script in folder.iterdir():
        if script.name.endswith(".py"):
            for down, revision in _REVISION.findall(script.read_text("utf-8")):
                (downs if down else revisions).add(revision)
    (head,) = revisions - downs
    return head


class Database:
    """One engine, its dialect's transaction rules, and the schema migrations."""

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = DEFAULT_POOL_SIZE,
        pool_timeout: float = POOL_TIMEOUT_SECONDS,
    ) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        # Errors name the statement, never its arguments (titles, notes: the caller's data).
        kwargs: dict[str, Any] = {"hide_parameters": True}
        if self.is_sqlite:
            _make_private(url)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 15}
            kwargs["pool_size"] = 8
            kwargs["max_overflow"] = 32
        else:
            kwargs["pool_size"] = pool_size
            kwargs["max_overflow"] = 0
            kwargs["pool_timeout"] = pool_timeout
        self.engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            _configure_sqlite(self.engine)
        else:
            _ping_idle_connections(self.engine)
        self._prepared: dict[Callable[[Database], Any], Any] = {}

    def migrate(self, target: str = "head") -> None:
        """Bring the schema to `target`, the newest revision by default (run on every start).

        A schema already at the newest revision is left alone without Alembic: importing it
        and loading every migration script cost most of a second of CPU on each start of a
        server or a one-shot command (bench/README.md, "Process start-up"). Alembic is
        imported only when there is something to run."""
        if target == "head" and self._revision() == head_revision():
            return
        from alembic import command
        from alembic.config import Config

        config = Config()
        location = resources.files("sosoapi.store") / "migrations"
        config.set_main_option("script_location", str(location))
        with self.write() as conn:
            if not self.is_sqlite:  # instances starting together migrate one at a time
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7301955004)")
            config.attributes["connection"] = conn
            command.upgrade(config, target)

    def _revision(self) -> str | None:
        """The schema's Alembic revision, None for a database not migrated yet."""
        with self.read() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return None
            row = conn.exec_driver_sql("SELECT version_num FROM alembic_version").first()
        return None if row is None else str(row[0])

    def read(self) -> AbstractContextManager[Connection]:
        """A read. On PostgreSQL it runs outside a transaction: at READ COMMITTED (the
        server's default, the service's level) each statement takes its own snapshot in a
        transaction or not, so a read's BEGIN and COMMIT were two round trips that bought
        nothing (a retrieval makes three reads: its token, its permission, its key). SQLite
        keeps its read transaction: there it is what gives a read one snapshot."""
        return self._connection(begin=None if self.is_sqlite else "AUTOCOMMIT")

    def write(self) -> AbstractContextManager[Connection]:
        return self._connection(begin="IMMEDIATE" if self.is_sqlite else None)

    def write_one(self) -> AbstractContextManager[Connection]:
        """A write of one statement, which is atomic on its own. On PostgreSQL it runs
        without BEGIN and COMMIT (the statement is its own transaction, committed as it
        ends): two round trips fewer for a lease taken or renewed, an origin's turn
        reserved. SQLite writes it as `write` does."""
        return self.write() if self.is_sqlite else self._connection(begin="AUTOCOMMIT")

    @contextmanager
    def _connection(self, begin: str | None) -> Iterator[Connection]:
        """A pooled connection in a transaction: SQLite's `BEGIN IMMEDIATE` (a write) or
        `BEGIN DEFERRED` (None), or PostgreSQL's AUTOCOMMIT (no BEGIN sent at all), or a
        plain BEGIN (None).

        SQLite's driver is left in autocommit (`_configure_sqlite`) and the BEGIN is sent
        here, as the transaction's first statement: a "begin" event listener on the engine
        did it before, and any engine event makes SQLAlchemy dispatch its events on every
        statement, commit and rollback (a third of a one-statement read's CPU here).
        """
        with operational_faults(), self.engine.connect() as conn:
            if begin == "AUTOCOMMIT":
                conn.execution_options(isolation_level="AUTOCOMMIT")
            with conn.begin():
                if self.is_sqlite:
                    conn.exec_driver_sql(_SQLITE_BEGIN[begin])
                yield conn

    def prepared(self, build: Callable[[Database], Built]) -> Built:
        """The statement `build` makes for this database, built on first use and reused.

        For the statements every retrieval runs: building one (`.where`, `.values`) and
        deriving its cache key cost more CPU than SQLite takes to run it. Values are bound
        at execution (`bindparam`), so one statement serves every call.
        """
        found = self._prepared.get(build)
        if found is None:
            found = self._prepared[build] = build(self)
        return found

    def insert(self, table: Any) -> Any:
        """A dialect insert, so callers can use `on_conflict_do_nothing`."""
        if self.is_sqlite:
            return sqlite_insert(table)
        return pg_insert(table)

    def dispose(self) -> None:
        self.engine.dispose()
