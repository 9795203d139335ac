"""What the HTTP server mounts for MCP, and how a server defers building it.

`McpHttp` is the /mcp app with the context that runs its sessions. `DeferredMcp` stands
in for it in `sosoapi serve`: the MCP SDK (imported whole by any of its modules, its
client included) and the app over it cost about 0.3 s of CPU, and most servers (the test
suite starts about a hundred) never see an MCP or OAuth request. So the app is built at
the first request that reaches it, and /healthz answers before. This module imports no
SDK module, for that reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

import anyio
from anyio.abc import TaskGroup, TaskStatus
from starlette.types import ASGIApp, Receive, Scope, Send


def resource_metadata_url(base: str) -> str:
    """Where /mcp's protected-resource metadata is (RFC 9728), `base` how clients reach us."""
    return f"{base}/.well-known/oauth-protected-resource/mcp"


@dataclass(frozen=True, slots=True)
class McpHttp:
    """The /mcp app, the context that runs its sessions, and its auth metadata URL."""

    app: ASGIApp
    running: AbstractAsyncContextManager[None]
    metadata_url: str


class DeferredMcp:
    """An `McpHttp` built by `build` at the first request, not at start.

    The build runs once, in a worker thread (its imports do not hold up the event loop's
    other requests), shielded from the first caller leaving; requests that arrive
    meanwhile wait for it. The built app's running context (the SDK's session manager) is
    entered in a task of `running`, which the server's lifespan holds: the sessions stop
    with the server, as when they started with it. The first MCP or OAuth request of a
    server pays the build instead (bench/README.md, "Process start-up")."""

    def __init__(self, build: Callable[[], McpHttp], base: str) -> None:
        self._build = build
        self.metadata_url = resource_metadata_url(base)
        self._app: ASGIApp | None = None
        self._tasks: TaskGroup | None = None
        self._lock: anyio.Lock | None = None
        self._stop: anyio.Event | None = None

    @property
    def app(self) -> ASGIApp:
        return self._serve

    @property
    def running(self) -> AbstractAsyncContextManager[None]:
        return self._running()

    @asynccontextmanager
    async def _running(self) -> AsyncIterator[None]:
        stop = anyio.Event()
        async with anyio.create_task_group() as tasks:
            self._tasks, self._lock, self._stop = tasks, anyio.Lock(), stop
            try:
                yield
            finally:
                self._tasks = None
                stop.set()  # the built app's sessions stop; the group waits for them

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self._app or await self._built()
        await app(scope, receive, send)

    async def _built(self) -> ASGIApp:
        tasks, lock, stop = self._tasks, self._lock, self._stop
        if tasks is None or lock is None or stop is None:
            raise RuntimeError("/mcp is served only while its `running` context is entered")
        async with lock:
            if self._app is None:
                with anyio.CancelScope(shield=True):
                    served = await anyio.to_thread.run_sync(self._build)
                    await tasks.start(self._run, served, stop)
                self._app = served.app
        return self._app

    @staticmethod
    async def _run(
        served: McpHttp,
        stop: anyio.Event,
        *,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        async with served.running:
            task_status.started()
            await stop.wait()
