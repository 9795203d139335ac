"""A forged cursor is a 400 naming `cursor` on every surface and both stores, never a 500.

Cursors are unsigned base64url JSON; these are the forgeries a hostile caller tries: huge
and non-integer offsets, wrong types, a NUL or an over-long id, a time the database cannot
hold, nesting deep enough to break the JSON parser, and plain garbage. Each list tool and
search is called over the HTTP API and over MCP, and each console page that pages.
"""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import httpx

from sosoapi.api.http import create_http_app
from sosoapi.application import Application
from sosoapi.contract.evidence_tools import SearchInput
from sosoapi.research.evidence.search import _fingerprint
from tests.support.mcp_http import inprocess_mcp, streamable
from tests.web.conftest import console_app, sign_in

BASE = "http://127.0.0.1:8080"
P = "sosoapi_research_"
MAX_SEARCH_OFFSET = 10_000  # store/cursors.py


def b64(value: Any) -> str:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def forged_cursors(fingerprint: str) -> list[str]:
    uid = str(uuid.uuid4())
    when = "2026-01-01T00:00:00+00:00"
    return [
        # search offsets: past 64 bits, past any integer, booleans, negative, fractions
        *(b64(["s", o, fingerprint]) for o in (2**63, 10**30, True, -1, 1.5, "3", None)),
        b64(["s", MAX_SEARCH_OFFSET + 1, fingerprint]),
        b64([2**63, fingerprint]),  # the old shape
        b64(["s", 0, "other-query"]),
        # keyset positions: a NUL, an over-long id, not strings, times the store cannot hold
        b64(["k", when, "a\x00b"]),
        b64(["k", when, "x" * 5000]),
        b64(["k", when, 7]),
        b64(["k", 2**63, uid]),
        b64(["k", "0001-01-01T00:00:00+14:00", uid]),
        b64(["k", "9999-12-31T23:59:59-14:00", uid]),
        b64(["k", "2026-01-01T00:00:00", uid]),  # no zone
        b64(["k", "not a time", uid]),
        b64([when, uid]),  # the old shape
        # the parser itself: deep nesting, invalid UTF-8, not JSON, not base64, too long
        b64(("[" * 100_000).encode())[:512],
        b64("[" * 5000),
        b64(b"\xff\xfe\x00"),
        b64(b"not json"),
        "!!not base64!!",
        "A" * 512,
    ]


def surfaces(application: Application):
    served = inprocess_mcp(application, BASE)
    api = create_http_app(
        application.research,
        running=application.running(),
        mcp=served,
        host="127.0.0.1",
        port=8080,
        profile="full",
        base=BASE,
        max_request_bytes=application.settings.max_request_bytes,
    )
    return api, served


LISTS = ("evidence_list", "projects_list", "corpora_list", "evidence_search")


def arguments(tool: str, ws: str, cursor: str) -> dict[str, Any]:
    extra = {"query": "paragraph"} if tool == "evidence_search" else {}
    return {"workspace_id": ws, "cursor": cursor, **extra}


async def test_forged_cursors_are_400_naming_cursor_over_http_and_mcp(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    api, served = surfaces(application)
    fingerprint = _fingerprint(SearchInput(workspace_id=ws, query="paragraph"))
    forged = forged_cursors(fingerprint)
    headers = {"Authorization": f"Bearer {token}"}
    transport = httpx.ASGITransport(app=api)
    async with httpx.AsyncClient(transport=transport, base_url=BASE, headers=headers) as http:
        for tool in LISTS:
            operation = "/research-api/" + tool.replace("_", "/", 1)
            for cursor in forged:
                answer = await http.post(operation, json=arguments(tool, ws, cursor))
                assert answer.status_code in (400, 422), (tool, cursor, answer.text)
                problem = answer.json()
                named = problem.get("field") == "cursor" or any(
                    "cursor" in e.get("loc", ()) or e.get("field") == "cursor"
                    for e in problem.get("errors", [])
                )
                assert named and "cursor" in problem["detail"], (tool, cursor, problem)
            first = {k: v for k, v in arguments(tool, ws, "x").items() if k != "cursor"}
            fine = await http.post(operation, json=first)
            assert fine.status_code == 200, fine.text  # and the next request still works
    async with streamable(served, headers) as client:
        for tool in LISTS:
            for cursor in forged:
                result = await client.call_tool(P + tool, arguments(tool, ws, cursor))
                assert result.is_error is True, (tool, cursor)
                text = " ".join(getattr(c, "text", "") for c in result.content)
                assert "cursor" in text and "internal" not in text.lower(), (tool, cursor, text)


async def test_forged_cursors_are_400_on_every_console_page(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    fingerprint = _fingerprint(SearchInput(workspace_id=ws, query="paragraph"))
    transport = httpx.ASGITransport(app=console_app(application))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await sign_in(client, token)
        base = f"/console/workspaces/{ws}"
        for page in ("/evidence", "/projects", "/corpora", "/retrievals", "/search?q=paragraph&"):
            path = base + (page if "?" in page else page + "?")
            for cursor in forged_cursors(fingerprint):
                answer = await client.get(path + "cursor=" + cursor)
                assert answer.status_code == 400, (page, cursor, answer.text[:300])
                assert "`cursor`" in answer.text, (page, cursor)


def test_search_cursors_round_trip_and_stop_at_the_bound() -> None:
    from sosoapi.store.cursors import MAX_SEARCH_OFFSET, decode_search, encode_search

    fingerprint = "0123456789abcdef"
    for offset in (0, 1, 200, MAX_SEARCH_OFFSET):
        assert decode_search(encode_search(offset, fingerprint), fingerprint) == offset
