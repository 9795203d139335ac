"""One typed error for every operational database fault, whatever the dialect.

A PostgreSQL that is restarting, unreachable or out of connections, an SQLite file that
cannot grow (disk full, a file size limit) or stays locked, a pool with no free connection
within its timeout: the caller can do nothing but retry later, so the store raises
`StoreUnavailable` and the surfaces word it. Programming and integrity errors pass through
unchanged: they are not the database's weather.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from sosoapi.store.records import StoreUnavailable

log = logging.getLogger("sosoapi.store")


TOO_MANY_CONNECTIONS = "53300"  # PostgreSQL's too_many_connections
# SQLite raises OperationalError for its weather and for a bad statement alike ("no such
# table", a syntax error: SQLITE_ERROR); only these primary result codes are weather.
SQLITE_WEATHER = frozenset(
    {
        "SQLITE_BUSY",
        "SQLITE_LOCKED",
        "SQLITE_NOMEM",
        "SQLITE_READONLY",
        "SQLITE_IOERR",
        "SQLITE_CORRUPT",
        "SQLITE_FULL",
        "SQLITE_CANTOPEN",
        "SQLITE_PROTOCOL",
        "SQLITE_NOLFS",
    }
)
_FIXES = {
    TOO_MANY_CONNECTIONS: "the server's max_connections is used up; keep instances x "
    "processes x SOSOAPI_DATABASE_POOL_SIZE below it",
    "pool_timeout": "every pooled connection stayed busy; raise SOSOAPI_DATABASE_POOL_SIZE "
    "if the server has connections to spare, or add instances",
}


def _cause(exc: DBAPIError) -> str:
    """A short name of the fault: the driver's error class and code, never its text.

    A refused connection carries no SQLSTATE in psycopg; "too many clients" is recognised
    from the server's fixed wording and named by its code.
    """
    orig = exc.orig
    code = getattr(orig, "sqlite_errorname", None) or getattr(orig, "sqlstate", None)
    if code is None and "too many clients" in str(orig):
        code = TOO_MANY_CONNECTIONS
    return f"{type(orig).__name__}{f' {code}' if code else ''}"


def _is_sqlite_mistake(exc: DBAPIError) -> bool:
    """An SQLite error that is the statement's fault, not the database's weather."""
    name = getattr(exc.orig, "sqlite_errorname", None)
    if name is None:
        return False
    primary = name if name in SQLITE_WEATHER else name.rsplit("_", 1)[0]
    return name not in SQLITE_WEATHER and primary not in SQLITE_WEATHER


def _unavailable(cause: str, what: str = "database unavailable") -> StoreUnavailable:
    fix = next((text for key, text in _FIXES.items() if cause.endswith(key)), None)
    log.warning("%s cause=%s%s", what, cause, f" fix={fix!r}" if fix else "")
    return StoreUnavailable(cause)


@contextmanager
def operational_faults() -> Iterator[None]:
    """Raise `StoreUnavailable` for a fault of the database itself inside the block."""
    try:
        yield
    except (OperationalError, InterfaceError) as exc:
        if _is_sqlite_mistake(exc):
            raise
        raise _unavailable(_cause(exc)) from None
    except PoolTimeout:
        raise _unavailable("pool_timeout") from None
    except DBAPIError as exc:
        if not exc.connection_invalidated:
            raise
        raise _unavailable(_cause(exc), "database connection lost") from None
