"""Stopping the work of an HTTP caller that went away (the API's read routes, the console).

A read nobody waits for any more should not hold its place: `unless_gone` runs it beside
a watcher of the request's messages and cancels it at the disconnect, so a queued heavy
read is dropped and a running one stops at its next checkpoint (research/heavy.py). A
write is never run this way: its receipt outlives its caller.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import anyio

if TYPE_CHECKING:
    from starlette.requests import Request

T = TypeVar("T")


async def _until_disconnect(request: Request, scope: anyio.CancelScope) -> None:
    """Cancel `scope` when the client goes away: its body is read (the caller reads it
    first), so the next message the server hands on is the disconnect."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
    scope.cancel()


async def unless_gone(request: Request, run: Callable[[], Awaitable[T]]) -> T | None:
    """`run()`, cancelled if the client disconnects first (None then), so a read nobody
    waits for stops: dropped from its queue, or stopped at its next checkpoint."""
    done: list[T] = []
    failed: list[Exception] = []

    async def work(scope: anyio.CancelScope) -> None:
        try:
            done.append(await run())
        except Exception as error:  # raised again outside the task group, unwrapped
            failed.append(error)
        finally:
            scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(_until_disconnect, request, tg.cancel_scope)
        tg.start_soon(work, tg.cancel_scope)
    if failed:
        raise failed[0]
    return done[0] if done else None
