"""Issue 36 item 4: `resources/read` of an evidence revision reads the whole text.

The long-source article (about 120,000 characters) is read through its resource, window
after window from `next`, over the in-process SDK client and over streamable HTTP, on
both stores: every window says the real total, `?offset=N` starts where asked, and the
windows join to exactly the text `evidence_get` serves, up to its last sentence.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import mcp
import mcp.types as types
import pytest

from sosoapi.application import Application
from sosoapi.mcp.resources import WINDOW_CHARS, evidence_uri
from tests.mcp.test_inprocess import server_for
from tests.support.long_sources import ARTICLE_CHARS, LAST_SENTENCE, article_html
from tests.support.mcp_http import inprocess_mcp, streamable
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"
BASE = "http://127.0.0.1:8080"
_TEXT_BLOCK = re.compile(r'field="text">\n(.*)\n</untrusted-data nonce="', re.DOTALL)


@asynccontextmanager
async def connected(
    transport: str, application: Application, token: str, *, schemas: bool = False
) -> AsyncIterator[mcp.Client]:
    """An SDK client in process, or over streamable HTTP; `schemas` lists output schemas
    (in process only)."""
    if transport == "inprocess":
        async with mcp.Client(server_for(application, token, schemas=schemas)) as client:
            yield client
        return
    served = inprocess_mcp(application, BASE)
    async with streamable(served, {"Authorization": f"Bearer {token}"}, BASE) as client:
        yield client


async def whole_text(client: mcp.Client, ws: str, evidence_id: str) -> str:
    """The revision's text as `evidence_get` serves it, read to its end."""
    read: list[str] = []
    offset: int | None = 0
    while offset is not None:
        got = await client.call_tool(
            P + "evidence_get", {"workspace_id": ws, "evidence_id": evidence_id, "offset": offset}
        )
        evidence = got.structured_content["evidence"]
        read.append(evidence["text"])
        offset = evidence["next_offset"]
    return "".join(read)


def window_of(read: types.ReadResourceResult) -> tuple[str, dict]:
    text = read.contents[0]
    assert isinstance(text, types.TextResourceContents) and text.meta
    found = _TEXT_BLOCK.search(text.text)
    assert found, text.text[:300]
    return found.group(1), text.meta["sosoapi/window"]


@pytest.mark.parametrize("transport", ["inprocess", "streamable_http"])
async def test_a_long_source_is_read_whole_through_its_resource(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    transport: str,
) -> None:
    ws, token = owner
    origin.routes["/long-survey"] = Route(article_html())
    async with connected(transport, application, token) as client:
        receipt = await client.call_tool(
            P + "evidence_retrieve",
            {"workspace_id": ws, "url": origin.url("/long-survey"), "kind": "url_text",
             "mutation_id": str(uuid.uuid4())},
        )  # fmt: skip
        evidence_id = receipt.structured_content["retrieval"]["evidence"]["evidence_id"]
        whole = await whole_text(client, ws, evidence_id)
        assert len(whole) >= ARTICLE_CHARS and whole.endswith(LAST_SENTENCE)

        windows: list[str] = []
        uri: str | None = evidence_uri(ws, evidence_id, 1)
        while uri is not None:
            text, window = window_of(await client.read_resource(uri))
            assert window["total"] == len(whole), window
            assert window["offset"] == sum(map(len, windows)) and len(text) <= WINDOW_CHARS
            assert window["end"] == window["offset"] + len(text)
            windows.append(text)
            uri = window["next"]
            assert len(windows) <= 2 * len(whole) // WINDOW_CHARS + 2, "windows must advance"
        assert "".join(windows) == whole
        assert window["end"] == len(whole) and windows[-1].endswith(LAST_SENTENCE)

        middle = len(windows[0]) + len(windows[1])
        text, window = window_of(
            await client.read_resource(f"{evidence_uri(ws, evidence_id, 1)}?offset={middle}")
        )
        assert window["offset"] == middle and whole[middle:].startswith(text)
