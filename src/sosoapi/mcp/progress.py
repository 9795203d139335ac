"""A retrieval's steps as MCP `notifications/progress`, only for a call with a token.

The reader reports every chunk; a client needs far fewer. Steps are coalesced and sent
at most `PER_SECOND` times a second (the latest step wins), and the last one is always
sent before the result. Progress never decreases, as the specification requires.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio

from sosoapi.progress import Listener, Step

PER_SECOND = 4
TOTAL = 100.0
# Where each stage starts on a 0-100 scale; `reading` spans 20-80 by bytes of a known length.
_AT = {"queued": 5.0, "robots": 10.0, "connecting": 15.0, "reading": 20.0, "parsing": 85.0}
_AT["stored"] = TOTAL
Send = Callable[[float, float | None, str | None], Awaitable[None]]


def _position(step: Step) -> tuple[float, str]:
    if step.stage == "reading":
        if step.total:
            share = min(1.0, (step.done or 0) / step.total)
            return 20.0 + 60.0 * share, f"reading: {step.done} of {step.total} bytes"
        done = step.done or 0  # of an unknown length: nearer 80 the more has come
        return 20.0 + 60.0 * done / (done + 65_536), f"reading: {done} bytes"
    words = {
        "queued": "queued for a slot",
        "robots": "checking robots.txt",
        "connecting": "connecting",
        "parsing": "parsing",
        "stored": "stored",
    }
    return _AT[step.stage], words[step.stage]


@asynccontextmanager
async def forwarding(send: Send | None) -> AsyncIterator[Listener | None]:
    """A listener for the research call, or None when the caller asked for no progress."""
    if send is None:
        yield None
        return
    latest: list[Step] = []
    changed = anyio.Event()
    sent = -1.0

    def listen(step: Step) -> None:
        nonlocal changed
        latest[:] = [step]
        changed.set()

    async def flush() -> None:
        nonlocal sent
        if not latest:
            return
        position, message = _position(latest.pop())
        if position > sent:
            sent = position
            # Shielded: the call ending cancels the pump, and a step it had taken but not yet
            # sent (the last one, `stored`) would be lost to the final flush.
            with anyio.CancelScope(shield=True):
                await send(position, TOTAL, message)

    async def pump() -> None:
        nonlocal changed
        while True:
            await changed.wait()
            changed = anyio.Event()
            await flush()
            await anyio.sleep(1 / PER_SECOND)

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        try:
            yield listen
        finally:
            tg.cancel_scope.cancel()
    with anyio.CancelScope(shield=True):
        await flush()
