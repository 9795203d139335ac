"""Issue 26's acceptance over MCP (in-process SDK client), on SQLite and PostgreSQL: a
120,000-character article read whole, its end quoted with anchors, and the text fragment
opened in chromium, which scrolls to the quoted sentence."""

from __future__ import annotations

import uuid

import mcp
import pytest

from sosoapi.application import Application
from tests.mcp.test_inprocess import server_for
from tests.support.browser import launch_options, need_chromium
from tests.support.evidence_tools import vtt
from tests.support.long_sources import LAST_SENTENCE, article_html, long_source_scenario
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"


async def test_a_long_article_is_read_whole_over_mcp(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    async with mcp.Client(server_for(application, token)) as client:

        async def call(tool_name: str, arguments: dict) -> tuple[dict, int | None]:
            result = await client.call_tool(tool_name, arguments)
            assert result.is_error is False, result.content[0].text
            return result.structured_content, None

        await long_source_scenario(call, origin, workspace_id)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_receipt_says_how_to_read_on(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/long"] = Route(article_html())
    async with mcp.Client(server_for(application, token)) as client:
        receipt = await client.call_tool(
            P + "evidence_retrieve",
            {
                "workspace_id": ws,
                "url": origin.url("/long"),
                "kind": "url_text",
                "mutation_id": str(uuid.uuid4()),
            },
        )
        data = receipt.structured_content["retrieval"]
        evidence_id = data["evidence"]["evidence_id"]
        said = receipt.content[0].text
        offset = len(data["result"]["text"])
        assert f"read on with sosoapi_research_evidence_get (evidence_id {evidence_id}, " in said
        assert f"offset {offset})" in said
        window = await client.call_tool(
            P + "evidence_get", {"workspace_id": ws, "evidence_id": evidence_id, "offset": offset}
        )
        got = window.structured_content["evidence"]
        assert got["offset"] == offset and got["next_offset"] == offset + len(got["text"])
        assert f"read on with offset {got['next_offset']}." in window.content[0].text

        cues = [(f"00:{i // 60:02d}:{i % 60:02d}.000 --> 00:{i // 60:02d}:{i % 60:02d}.500",
                 f"Cue {i}.") for i in range(1_200)]  # fmt: skip
        origin.routes["/long.vtt"] = Route(vtt(cues), content_type="text/vtt")
        talk = await client.call_tool(
            P + "evidence_retrieve",
            {"workspace_id": ws, "url": origin.url("/long.vtt"), "kind": "published_captions",
             "mutation_id": str(uuid.uuid4())},
        )  # fmt: skip
        result = talk.structured_content["retrieval"]["result"]
        said_codes = [result["reason"], *result["warnings"]]
        assert "cues_limited" in said_codes and "text_limited" not in said_codes
        assert f"offset {len(result['text'])})" in talk.content[0].text


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_chromium_scrolls_to_the_text_fragment(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """The quote's text-fragment URL, opened on the served page, scrolls to the sentence
    (at the very end of a 120,000-character page) and highlights exactly it."""
    need_chromium()
    from playwright.async_api import async_playwright

    workspace_id, token = owner
    async with mcp.Client(server_for(application, token)) as client:

        async def call(tool_name: str, arguments: dict) -> tuple[dict, int | None]:
            result = await client.call_tool(tool_name, arguments)
            assert result.is_error is False, result.content[0].text
            return result.structured_content, None

        match = await long_source_scenario(call, origin, workspace_id)
    url = match["anchor"]["text_fragment_url"]
    async with async_playwright() as p:
        options = launch_options()
        args = [*options.pop("args"), "--host-resolver-rules=MAP origin.test 127.0.0.1"]  # type: ignore[misc]
        browser = await p.chromium.launch(headless=True, args=args, **options)
        try:
            context = await browser.new_context(ignore_https_errors=True)
            page = await context.new_page()
            await page.goto(origin.url("/long-survey"))
            assert await page.evaluate("window.scrollY") == 0
            await page.goto("about:blank")
            await page.goto(url)
            await page.wait_for_function("window.scrollY > 0", timeout=10_000)
            seen = await page.evaluate(
                """() => {
                    const last = document.querySelector('article p:last-child');
                    const box = last.getBoundingClientRect();
                    return {top: box.top, bottom: box.bottom, height: window.innerHeight};
                }"""
            )
            assert 0 <= seen["top"] < seen["height"] and seen["bottom"] > 0, seen
        finally:
            await browser.close()
    assert LAST_SENTENCE.split()[-1] in url
