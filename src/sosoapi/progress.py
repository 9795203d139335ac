"""How far a retrieval has got, reported from deep inside it without a callback per layer.

The worker that reads a receipt sets a listener in a context variable for its own task;
the egress gate and the reader call `report` at each stage, which costs nothing when no
one listens. A `Board` fans one receipt's steps out to the callers waiting on it, so a
surface can turn them into its own notifications (MCP's `notifications/progress`).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

Stage = Literal["queued", "robots", "connecting", "reading", "parsing", "stored"]


@dataclass(frozen=True, slots=True)
class Step:
    """One stage reached; `done`/`total` count body bytes while `reading`."""

    stage: Stage
    done: int | None = None
    total: int | None = None


Listener = Callable[[Step], None]  # must not block: it runs inside the reading task
_current: contextvars.ContextVar[Listener | None] = contextvars.ContextVar(
    "sosoapi_progress", default=None
)


def report(stage: Stage, done: int | None = None, total: int | None = None) -> None:
    listener = _current.get()
    if listener is not None:
        listener(Step(stage, done, total))


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send this task's `report`s to `listener` inside the block."""
    token = _current.set(listener)
    try:
        yield
    finally:
        _current.reset(token)


class Board:
    """The listeners waiting on each key (a retrieval id), in this process."""

    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = {}

    @contextmanager
    def watching(self, key: str, listener: Listener | None) -> Iterator[None]:
        if listener is None:
            yield
            return
        self._listeners.setdefault(key, []).append(listener)
        try:
            yield
        finally:
            waiting = self._listeners.get(key, [])
            waiting.remove(listener)
            if not waiting:
                self._listeners.pop(key, None)

    def send(self, key: str) -> Listener:
        """A listener that forwards to whoever watches `key` at the time of each step."""

        def forward(step: Step) -> None:
            for listener in list(self._listeners.get(key, ())):
                listener(step)

        return forward
