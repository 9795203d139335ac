"""One typed error for every operational database fault, whatever the dialect.

A PostgreSQL that is restarting or unreachable, an SQLite file that cannot grow (disk
full, a file size limit) or stays locked: the caller can do nothing but retry later, so
the store raises `StoreUnavailable` and the surfaces word it. Programming and integrity
errors pass through unchanged: they are not the database's weather.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

log = logging.getLogger("sosoapi.store")


class StoreUnavailable(Exception):
    """The database cannot serve this transaction now; nothing of it was committed."""

    def __init__(self, cause: str) -> None:
        super().__init__(f"database unavailable ({cause})")
        self.cause = cause


def _cause(exc: DBAPIError) -> str:
    """A short name of the fault: the driver's error class and code, never its text."""
    orig = exc.orig
    code = getattr(orig, "sqlite_errorname", None) or getattr(orig, "sqlstate", None)
    return f"{type(orig).__name__}{f' {code}' if code else ''}"


@contextmanager
def operational_faults() -> Iterator[None]:
    """Raise `StoreUnavailable` for a fault of the database itself inside the block."""
    try:
        yield
    except (OperationalError, InterfaceError) as exc:
        cause = _cause(exc)
        log.warning("database unavailable cause=%s", cause)
        raise StoreUnavailable(cause) from None
    except DBAPIError as exc:
        if not exc.connection_invalidated:
            raise
        cause = _cause(exc)
        log.warning("database connection lost cause=%s", cause)
        raise StoreUnavailable(cause) from None
