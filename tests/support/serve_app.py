"""`sosoapi serve`'s app in this process: `app.http_app` built from an environment, as the
command builds it, with its lifespan running (the service's workers, the /mcp sessions).

For a test of what the app decides (a setting's effect, the Host check, OAuth metadata)
without a server process: a client reaches it through an ASGI transport. That transport
hands over each answer whole, so what needs a socket (an answer streamed as it is made, a
client that hangs up) stays with `served` (tests/support/served.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from fastapi import FastAPI

from sosoapi.app import http_app
from sosoapi.config import Settings

PORT = 8080
BASE = f"http://127.0.0.1:{PORT}"


@asynccontextmanager
async def serve_app(env: Mapping[str, str]) -> AsyncIterator[FastAPI]:
    """The app `sosoapi serve --port 8080` runs with `env`, started; parsing in threads
    (`SOSOAPI_PARSE_WORKERS=0` unless `env` says otherwise), so no process is started."""
    settings = Settings.from_env({"SOSOAPI_PARSE_WORKERS": "0", **env})
    app = http_app(settings, host="127.0.0.1", port=PORT)
    async with app.router.lifespan_context(app):
        yield app
