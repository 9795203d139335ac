"""The console over ASGI, in process, against the shared application fixture."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from sosoapi.api.http import create_http_app
from sosoapi.app import Application
from tests.support.console import Seeded, seed_review
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin
from tests.surfaces.conftest import initialised, process_env, served

__all__ = ["initialised", "process_env", "served"]


@pytest.fixture
async def client(application: Application) -> AsyncIterator[httpx.AsyncClient]:
    api = create_http_app(application, host="127.0.0.1", port=8080, profile="full")
    transport = httpx.ASGITransport(app=api)
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
