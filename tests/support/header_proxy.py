"""A loopback reverse proxy that adds request headers: how a test puts `Authorization` in
front of a client that cannot send one (the MCP conformance suite's `server` command).

It forwards every request as it came, `Host` and `Origin` included (so the server still
judges DNS rebinding on what the client sent), adds the configured headers, and streams
the response back unchanged (SSE included), closing the upstream stream when the client
goes away.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

import anyio
import httpx
import uvicorn
from starlette.types import Message, Receive, Scope, Send

from tests.support.services import free_port

HOP_BY_HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"upgrade"}


class HeaderProxy:
    """Forward `http://127.0.0.1:{port}` to `upstream`, adding `headers` to each request."""

    def __init__(self, upstream: str, headers: Mapping[str, str]) -> None:
        self.upstream = upstream.rstrip("/")
        self.added = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        self.port = free_port()
        self.requests = 0
        config = uvicorn.Config(
            self._app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            interface="asgi3",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> HeaderProxy:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the header proxy did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        self.requests += 1
        body = await _read_body(receive)
        names = {name for name, _ in self.added}
        headers = [
            (k, v) for k, v in scope["headers"] if k not in HOP_BY_HOP and k not in names
        ] + self.added
        url = self.upstream + scope["raw_path"].decode()
        if scope["query_string"]:
            url += "?" + scope["query_string"].decode()
        async with httpx.AsyncClient(timeout=None, trust_env=False) as http:
            request = http.build_request(scope["method"], url, headers=headers, content=body)
            response = await http.send(request, stream=True)
            try:
                await _relay(response, receive, send)
            finally:
                await response.aclose()


async def _read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _relay(response: httpx.Response, receive: Receive, send: Send) -> None:
    """Stream the upstream response to the client until it ends or the client leaves."""
    headers = [(k, v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    async with anyio.create_task_group() as group:

        async def watch_disconnect() -> None:
            message: Message = await receive()
            while message["type"] != "http.disconnect":
                message = await receive()
            group.cancel_scope.cancel()

        group.start_soon(watch_disconnect)
        async for chunk in response.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        group.cancel_scope.cancel()
