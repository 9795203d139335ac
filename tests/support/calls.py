"""Calling the research service the way a surface does, with every output validated."""

from __future__ import annotations

import uuid
from typing import Any

from sosoapi.application import Application
from tests.support.contract import assert_valid_output

RETRIEVE = "sosoapi_research_evidence_retrieve"
RETRIEVE_PATH = "/research-api/evidence/retrieve"


def args(workspace_id: str, url: str, kind: str = "url_text", **extra: str) -> dict[str, str]:
    """Retrieve arguments with a fresh `mutation_id`."""
    return {
        "url": url,
        "kind": kind,
        "workspace_id": workspace_id,
        "mutation_id": str(uuid.uuid4()),
        **extra,
    }


async def run(
    app: Application, token: str, tool: str, arguments: dict[str, Any], transport: str = "http"
) -> tuple[dict[str, Any], int | None]:
    """The tool's wire output, checked against the contract, and the corpus revision."""
    outcome = await app.research.call(tool, token, arguments, transport=transport)  # type: ignore[arg-type]
    data = outcome.output.wire()
    assert_valid_output(tool, data)
    return data, outcome.corpus_revision


async def call(app: Application, token: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One retrieve over HTTP; the receipt."""
    data, _ = await run(app, token, RETRIEVE, arguments)
    return data["retrieval"]
