"""The document tool over both MCP transports (the in-process SDK client and streamable
HTTP), on both stores: listed with the seed retrieve's annotations and its own published
output schema, its structured result valid, its evidence read back by every evidence tool
and its resource, as any evidence is."""

from __future__ import annotations

import uuid

import mcp
import mcp.types as types
import pytest

from sosoapi.application import Application
from sosoapi.contract.schemas import tool
from sosoapi.mcp.resources import evidence_uri
from tests.documents.support import TOOL, by_name_path
from tests.mcp.test_resources_whole import connected
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"


async def called(client: mcp.Client, name: str, arguments: dict) -> dict:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    data: dict = result.structured_content
    assert_valid_output(name, data)
    return data


@pytest.mark.parametrize("transport", ["inprocess", "streamable_http"])
async def test_the_document_tool_and_its_evidence_over_mcp(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, transport: str
) -> None:
    ws, token = owner
    origin.routes["/paper.pdf"] = Route(
        by_name_path("unstructured-multi-column-2p").read_bytes(), content_type="application/pdf"
    )
    async with connected(transport, application, token, schemas=True) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        document, seed = listed[TOOL], listed[P + "evidence_retrieve"]
        assert document.annotations == seed.annotations
        if transport == "inprocess":  # listed with SOSOAPI_OUTPUT_SCHEMAS=1
            assert document.output_schema == tool(TOOL)["outputSchema"]
        arguments = {"workspace_id": ws, "mutation_id": str(uuid.uuid4()),
                     "url": origin.url("/paper.pdf")}  # fmt: skip
        result = await client.call_tool(TOOL, arguments)
        receipt = result.structured_content["retrieval"]
        assert_valid_output(TOOL, result.structured_content)
        assert receipt["result"]["status"] == "ready" and receipt["kind"] == "pdf_text"
        first = result.content[0]
        assert isinstance(first, types.TextContent)
        assert first.text.startswith(f"Retrieval {receipt['id']} of {arguments['url']}")
        assert "2 pages" in first.text
        evidence_id = receipt["evidence"]["evidence_id"]
        links = [c for c in result.content if isinstance(c, types.ResourceLink)]
        assert [str(link.uri) for link in links] == [evidence_uri(ws, evidence_id, 1)]
        replay = await called(client, TOOL, arguments)
        assert replay["retrieval"] == receipt

        got = await called(client, P + "evidence_get", {"workspace_id": ws,
                                                        "evidence_id": evidence_id})  # fmt: skip
        evidence = got["evidence"]
        assert evidence["kind"] == "pdf_text"
        assert evidence["provenance"]["mime_type"] == "application/pdf"
        page_two = receipt["result"]["pages"][1]
        quote = evidence["text"][page_two["start"] : page_two["start"] + 80]
        listed_items = await called(client, P + "evidence_list", {"workspace_id": ws,
                                                                  "kind": "pdf_text"})  # fmt: skip
        assert [i["id"] for i in listed_items["items"]] == [evidence_id]
        words = " ".join(quote.split()[1:4])
        found = await called(client, P + "evidence_search", {"workspace_id": ws, "query": words,
                                                             "kind": "pdf_text"})  # fmt: skip
        assert [r["evidence_id"] for r in found["results"]] == [evidence_id]
        checked = await called(client, P + "evidence_quote", {"workspace_id": ws,
                               "evidence_id": evidence_id, "quote": quote})  # fmt: skip
        assert checked["verdict"] == "exact"
        assert checked["matches"][0]["start"] == page_two["start"]
        diffed = await called(client, P + "evidence_diff", {"workspace_id": ws,
                              "evidence_id": evidence_id, "from_revision": 1})  # fmt: skip
        assert diffed["changes"] == []
        uri = f"{evidence_uri(ws, evidence_id, 1)}?offset={page_two['start']}"
        read = await client.read_resource(uri)
        text = read.contents[0]
        assert isinstance(text, types.TextResourceContents) and quote in text.text
