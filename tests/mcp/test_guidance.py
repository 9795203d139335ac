"""One table of reasons drives the first line of a retrieve result's MCP content and the
README's troubleshooting table."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import mcp
import pytest

from sosoapi.application import Application
from sosoapi.contract.guidance import CAUSES, REASONS, STATES, causes_table, markdown_table
from sosoapi.contract.vocabulary import OPEN_STATES, Cause, Reason, State
from sosoapi.store.settings import sqlite_url
from tests.mcp.test_inprocess import RETRIEVE, server_for
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import make_settings, owner_token

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
    _, meaning, action = CAUSES[Cause.PRIVATE_ADDRESS]  # the cause of this unsafe_url
    assert blocked.endswith(f"unsafe_url, private_address: {meaning}; {action}.")

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


def test_readme_names_every_cause() -> None:
    assert causes_table() in README.read_text(encoding="utf-8")


async def test_a_certificate_failure_says_what_failed_and_a_replay_says_it_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The reason stays `unsafe_url`; the first line, the `_meta` and a warning log line
    say the certificate expired, and a replay (read from the store) says the same."""
    expired = datetime.now(UTC) - timedelta(days=2)
    with HTTPSOrigin({"/": Route(b"<p>hi</p>")}, not_after=expired) as stale:
        settings = make_settings(sqlite_url(tmp_path / "db"), tmp_path, stale.egress_env())
        application = Application(settings)
        try:
            async with held_open(application.running()):
                workspace_id, token = owner_token(application)
                arguments = {
                    "url": stale.url("/"),
                    "kind": "url_text",
                    "workspace_id": workspace_id,
                    "mutation_id": str(uuid.uuid4()),
                }
                with caplog.at_level(logging.WARNING, "sosoapi.egress"):
                    async with mcp.Client(server_for(application, token)) as client:
                        first = await client.call_tool(RETRIEVE, arguments)
            replayer = Application(settings)  # a fresh process: the cause comes from the store
            async with (
                held_open(replayer.running()),
                mcp.Client(server_for(replayer, token)) as client,
            ):
                again = await client.call_tool(RETRIEVE, arguments)
            replayer.store.close()
        finally:
            application.store.close()
    result = first.structured_content["retrieval"]["result"]
    assert (result["status"], result["reason"]) == ("blocked", "unsafe_url")
    line = first.content[0].text.splitlines()[0]
    _, meaning, action = CAUSES[Cause.CERTIFICATE_EXPIRED]
    assert line.endswith(f"unsafe_url, certificate_expired: {meaning}; {action}.")
    assert "public https address" not in line
    assert (first.meta or {})["sosoapi/cause"] == "certificate_expired"
    assert again.content[0].text.splitlines()[0] == line
    assert (again.meta or {})["sosoapi/cause"] == "certificate_expired"
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("reason=unsafe_url cause=certificate_expired" in m for m in warned), warned
