"""One table of reasons drives the first line of a retrieve result's MCP content and the
README's troubleshooting table."""

from __future__ import annotations

import uuid
from pathlib import Path

import mcp

from sosoapi.app import Application
from sosoapi.contract.guidance import REASONS, STATES, markdown_table
from sosoapi.contract.vocabulary import OPEN_STATES, Reason, State
from tests.mcp.test_inprocess import RETRIEVE, server_for
from tests.support.origin import HTTPSOrigin

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_reason_and_unsettled_state_has_advice() -> None:
    assert set(REASONS) == set(Reason)
    assert set(STATES) >= set(OPEN_STATES) | {State.UNCONFIRMED, State.EXPIRED}


def test_readme_table_is_the_code_table() -> None:
    assert markdown_table() in README.read_text(encoding="utf-8")


async def call(application: Application, token: str, workspace_id: str, url: str) -> str:
    arguments = {
        "url": url,
        "kind": "url_text",
        "workspace_id": workspace_id,
        "mutation_id": str(uuid.uuid4()),
    }
    async with mcp.Client(server_for(application, token)) as client:
        result = await client.call_tool(RETRIEVE, arguments)
    assert result.is_error is False
    return result.content[0].text.splitlines()[0]


async def test_first_line_names_the_url_and_advises_when_not_ready(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    workspace_id, token = owner
    blocked = await call(application, token, workspace_id, "https://10.0.0.1/private")
    assert " of https://10.0.0.1/private (mutation_id " in blocked
    meaning, action = REASONS[Reason.UNSAFE_URL]
    assert blocked.endswith(f"unsafe_url: {meaning}; {action}.")

    ready_url = origin.url(next(iter(pages)))
    ready = await call(application, token, workspace_id, ready_url)
    assert f" of {ready_url} (mutation_id " in ready and "status ready" in ready
    assert not any(f"{reason}: " in ready for reason in REASONS)


async def test_rate_limited_advice_followed_gets_the_page(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """The origin's 429 settles the receipt: the advice says a new mutation_id after N
    seconds (the same one only replays the settled receipt), and doing so gets the page."""
    import asyncio
    import re

    workspace_id, token = owner
    answers = iter([429, 200])

    def limited(handler) -> None:  # 429 with Retry-After: 1, then the page
        status = next(answers, 200)
        body = b"<html><body><p>The page after the wait.</p></body></html>"
        handler.send_response(status)
        if status == 429:
            handler.send_header("Retry-After", "1")
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    origin.routes["/limited"] = limited
    url = origin.url("/limited")
    first = await call(application, token, workspace_id, url)
    assert "rate_limited" in first and "new mutation_id" in first, first
    wait = int(re.search(r"after (\d+) seconds", first).group(1))  # type: ignore[union-attr]
    await asyncio.sleep(wait)
    again = await call(application, token, workspace_id, url)  # call() uses a new mutation_id
    assert "status ready" in again, again
