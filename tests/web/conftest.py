"""The console over ASGI, in process, against the shared application fixture."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from sosoapi.application import Application
from sosoapi.research.review.sessions import ConsoleSessions
from sosoapi.research.review.views import Review
from sosoapi.web.console import add_console
from tests.support.console import Seeded, seed_review
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin


def console_app(
    application: Application, *, secure_cookie: bool = False, **review: Any
) -> Starlette:
    """The console's routes alone (`sosoapi serve` adds the same; the browser test uses it)."""
    app = Starlette()
    add_console(
        app,
        ConsoleSessions(application.research, **review),
        Review(application.research),
        secure_cookie=secure_cookie,
    )
    return app


@pytest.fixture
async def client(application: Application) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=console_app(application))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
async def seeded(application: Application, owner: tuple[str, str], origin: HTTPSOrigin) -> Seeded:
    ws, token = owner

    async def call(tool: str, arguments: dict[str, Any]) -> tuple[dict, int | None]:
        outcome = await application.research.call(tool, token, arguments)
        data = outcome.output.wire()
        assert_valid_output(tool, data)
        return data, outcome.corpus_revision

    return await seed_review(call, origin, ws)


async def sign_in(client: httpx.AsyncClient, token: str) -> httpx.Response:
    response = await client.post("/console/sign-in", data={"token": token})
    assert response.status_code == 303, response.text
    return response
