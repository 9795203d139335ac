"""Waiting for an origin's turn past a read's deadline, decided by whoever owns the read.

An origin's `Crawl-delay` can put a read's politeness turn after its fetch deadline. The
egress gate cannot tell whether that read may wait longer: the receipt worker can (the
receipt stays `pending` until the turn, if the turn comes inside its window). As with
`progress`, the worker sets its `Keeper` in a context variable for its own task, and the
gate asks it, so no layer between them carries a callback.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Keeper(Protocol):
    """The owner of one read, asked when the read's turn comes after its deadline."""

    async def park(self, seconds: float) -> bool:
        """True: wait `seconds` for the turn (outside the deadline), then `resume`.
        False: the turn is too late for the read (it settles `rate_limited`)."""
        ...

    async def resume(self) -> None:
        """The turn has come: the read runs now (raises if it must not run any more)."""
        ...


_current: contextvars.ContextVar[Keeper | None] = contextvars.ContextVar(
    "sosoapi_turns", default=None
)


def keeper() -> Keeper | None:
    """The keeper of the read this task runs, if any (none: wait inside the deadline)."""
    return _current.get()


@contextmanager
def keeping(owner: Keeper | None) -> Iterator[None]:
    """Ask `owner` about this task's late turns inside the block (None: no one asks)."""
    token = _current.set(owner)
    try:
        yield
    finally:
        _current.reset(token)
