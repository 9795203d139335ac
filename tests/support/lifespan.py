"""Hold an async context manager open in a task of its own.

pytest-asyncio sets fixtures up and tears them down in different tasks, and an anyio
task group must be exited by the task that entered it; a dedicated task does both.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TypeVar

T = TypeVar("T")


@asynccontextmanager
async def held_open(manager: AbstractAsyncContextManager[T]) -> AsyncIterator[T]:
    entered: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    release = asyncio.Event()

    async def hold() -> None:
        try:
            async with manager as value:
                entered.set_result(value)
                await release.wait()
        except BaseException as exc:
            if not entered.done():
                entered.set_exception(exc)
            raise

    task = asyncio.create_task(hold())
    try:
        yield await entered
    finally:
        release.set()
        await task
