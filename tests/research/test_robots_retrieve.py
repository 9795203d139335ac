"""A URL the publisher's robots.txt disallows for us settles blocked / access_denied."""

from __future__ import annotations

import uuid

from sosoapi.application import Application
from tests.support.calls import RETRIEVE
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route


async def test_a_disallowed_url_is_blocked_and_never_requested(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    workspace_id, token = owner
    path = next(iter(pages))
    origin.routes["/robots.txt"] = Route(
        f"User-agent: SosoAPI-Research\nDisallow: {path}\n".encode(), content_type="text/plain"
    )
    arguments = {
        "url": origin.url(path),
        "kind": "url_text",
        "workspace_id": workspace_id,
        "mutation_id": str(uuid.uuid4()),
    }
    outcome = await application.research.call(RETRIEVE, token, arguments, transport="http")
    data = outcome.output.wire()
    assert_valid_output(RETRIEVE, data)
    receipt = data["retrieval"]
    result = receipt["result"]
    assert receipt["state"] == "completed" and receipt["evidence"] is None
    assert (result["status"], result["reason"], result["warnings"]) == (
        "blocked",
        "access_denied",
        [],
    )
    assert result["provenance"]["source_url"] is None and result["text"] == ""
    assert origin.hits[path] == 0 and origin.hits["/robots.txt"] == 1
