"""PDF evidence as MCP resources (issue 37 item 5): the document tool's answer links its
evidence revision, and that resource serves the PDF's whole text window by window like
any evidence, over the in-process SDK client and streamable HTTP, on both stores."""

from __future__ import annotations

import uuid

import mcp.types as types
import pytest

from sosoapi.application import Application
from sosoapi.mcp.resources import evidence_uri
from tests.documents.support import PDF, stored
from tests.mcp.test_resources_whole import connected, window_of
from tests.support.origin import HTTPSOrigin, Route

PAPER = PDF / "docling-normal_4pages.pdf"  # four pages of Korean text, a title of its own


@pytest.mark.parametrize("transport", ["inprocess", "streamable_http"])
async def test_a_pdf_read_by_the_document_tool_links_its_evidence_resource(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, transport: str
) -> None:
    ws, token = owner
    origin.routes["/paper.pdf"] = Route(PAPER.read_bytes(), content_type="application/pdf")
    async with connected(transport, application, token) as client:
        answer = await client.call_tool(
            "sosoapi_research_document_retrieve",
            {"workspace_id": ws, "url": origin.url("/paper.pdf"), "mutation_id": str(uuid.uuid4())},
        )
        receipt = answer.structured_content["retrieval"]
        ref = receipt["evidence"]
        uri = evidence_uri(ws, ref["evidence_id"], ref["revision"])
        linked = [b for b in answer.content if isinstance(b, types.ResourceLink)]
        assert [str(b.uri) for b in linked] == [uri]
        windows: list[str] = []
        next_uri: str | None = uri
        while next_uri is not None:
            read = await client.read_resource(next_uri)
            text, window = window_of(read)
            windows.append(text)
            next_uri = window["next"]
        first = await client.read_resource(uri)
    revision = stored(application, ws, receipt)
    assert receipt["kind"] == "pdf_text" and len(revision.pages) == 4
    assert "".join(windows) == revision.text  # the whole text, every page of it
    data = first.contents[1]
    assert isinstance(data, types.TextResourceContents) and data.mime_type == "application/json"
    assert '"kind": "pdf_text"' in data.text and '"application/pdf"' in data.text
    assert receipt["result"]["title"] in first.contents[0].text  # type: ignore[union-attr]
