"""Evidence search, quote check and diff through the service, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from sosoapi.app import Application
from sosoapi.auth.admin import Admin
from sosoapi.contract.errors import ServiceError
from tests.support.contract import assert_valid_output
from tests.support.evidence_tools import SOURCES, evidence_tools_scenario, html
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"


async def run(app: Application, token: str, tool: str, **arguments: Any) -> dict:
    outcome = await app.research.call(P + tool, token, arguments, transport="http")
    data = outcome.output.wire()
    assert_valid_output(P + tool, data)
    return data


async def test_search_quote_and_diff_through_the_service(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner

    async def call(tool: str, arguments: dict[str, Any]) -> tuple[dict, int | None]:
        outcome = await application.research.call(tool, token, arguments, transport="http")
        return outcome.output.wire(), outcome.corpus_revision

    await evidence_tools_scenario(call, origin, ws)
