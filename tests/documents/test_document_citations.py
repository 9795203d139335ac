"""PDF evidence cited to the page, end to end on both stores: a real PDF read by the
document tool through the egress gate from a loopback HTTPS origin (`application/pdf`),
then quoted, searched, read in windows and checked over a corpus through the evidence
tools, every output validated against the package's published contract.

The paper (`unstructured-layout-parser-paper-with-empty-pages.pdf`) has text on pages 1
and 4 and nothing on pages 2 and 3; which page holds the quoted words is what pypdf, a
second reader, finds (`tests/research/test_pdf_citations.py`, which also follows the
`#page=4` link in chromium's PDF viewer).
"""

from __future__ import annotations

import uuid
from typing import Any

from sosoapi.application import Application
from sosoapi.contract.evidence_tools import QuoteOutput, SearchOutput
from sosoapi.mcp.presenters import render
from tests.documents.support import PDF, document_args, retrieve_document
from tests.support.calls import args as seed_args
from tests.support.calls import call as seed_call
from tests.support.calls import run
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"
PAPER = PDF / "unstructured-layout-parser-paper-with-empty-pages.pdf"
ON_PAGE_4 = (
    "A generalized learning-based framework dramatically reduces the need for the manual "
    "specification of complicated rules"
)
FRAGMENT_4 = {
    "type": "FragmentSelector",
    "conformsTo": "http://tools.ietf.org/rfc/rfc3778",
    "value": "page=4",
}
POST = (
    b"<html lang='en'><head><title>A post</title></head><body><article><p>A blog post says "
    b"that one framework removes every rule, which is not what the paper says.</p>"
    b"</article></body></html>"
)


async def _read(application: Application, owner: tuple[str, str], origin: HTTPSOrigin) -> str:
    workspace_id, token = owner
    origin.routes["/papers/layout-parser.pdf"] = Route(
        PAPER.read_bytes(), content_type="application/pdf"
    )
    url = origin.url("/papers/layout-parser.pdf")
    receipt = await retrieve_document(application, token, document_args(workspace_id, url))
    assert receipt["result"]["status"] == "ready", receipt["result"]
    return str(receipt["evidence"]["evidence_id"])


def _tool(application: Application, owner: tuple[str, str]) -> Any:
    workspace_id, token = owner

    async def call(name: str, **arguments: Any) -> dict[str, Any]:
        data, _ = await run(
            application, token, P + name, {"workspace_id": workspace_id, **arguments}
        )
        return data

    return call


async def test_a_quotation_from_page_4_is_cited_to_page_4(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    pdf = await _read(application, owner, origin)
    url = origin.url("/papers/layout-parser.pdf")
    call = _tool(application, owner)

    checked = await call("evidence_quote", evidence_id=pdf, quote=ON_PAGE_4)
    assert checked["verdict"] == "exact"
    [match] = checked["matches"]
    assert match["page"] == {"number": 4, "label": None}  # the paper declares no labels
    anchor = match["anchor"]
    assert anchor["selector"][2] == FRAGMENT_4
    assert anchor["page_url"] == url + "#page=4"
    assert anchor["text_fragment_url"] is None

    found = await call("evidence_search", query='"generalized learning-based framework"')
    [result] = found["results"]
    assert result["kind"] == "pdf_text"
    pages = {(s["page"]["number"], s["anchor"]["page_url"]) for s in result["snippets"]}
    assert pages == {(4, url + "#page=4")}

    # what an MCP client without structured output reads says the page too
    quoted = render(QuoteOutput.model_validate(checked))
    assert f"{pdf} r1 [{match['start']}:{match['end']}] page 4 similarity 1" in quoted
    searched = render(SearchOutput.model_validate(found))
    snippet = result["snippets"][0]
    assert f"{pdf} r1 [{snippet['start']}:{snippet['end']}] page 4 " in searched


async def test_evidence_get_windows_name_the_pages_they_cover(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    pdf = await _read(application, owner, origin)
    call = _tool(application, owner)
    whole = (await call("evidence_get", evidence_id=pdf))["evidence"]
    assert [(p["number"], p["has_text"]) for p in whole["pages"]] == [
        (1, True), (2, False), (3, False), (4, True)
    ]  # fmt: skip
    first, *_, last = whole["pages"]
    text = whole["text"]
    assert text[first["start"] : first["end"]].startswith("LayoutParser")
    assert ON_PAGE_4 in text[last["start"] : last["end"]]

    named: list[int] = []
    offset: int | None = 0
    while offset is not None:
        window = (await call("evidence_get", evidence_id=pdf, offset=offset, length=1_000))[
            "evidence"
        ]
        end = offset + len(window["text"])
        assert all(p["start"] < end and p["end"] >= offset for p in window["pages"])
        named += [p["number"] for p in window["pages"]]
        offset = window["next_offset"]
    assert sorted(set(named)) == [1, 2, 3, 4]
    assert named.count(2) == named.count(3) == 1  # the empty pages, once each


async def test_a_quote_checked_against_a_web_page_is_found_elsewhere_in_the_pdf(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    pdf = await _read(application, owner, origin)
    origin.routes["/post"] = Route(POST)
    post = await seed_call(application, token, seed_args(workspace_id, origin.url("/post")))
    web = str(post["evidence"]["evidence_id"])
    call = _tool(application, owner)
    project = (await call("projects_create", mutation_id=str(uuid.uuid4()), title="DIA"))["project"]
    await call(
        "projects_add_sources",
        mutation_id=str(uuid.uuid4()),
        project_id=project["id"],
        evidence_ids=[web, pdf],
    )
    sealed = await call("corpora_seal", mutation_id=str(uuid.uuid4()), project_id=project["id"])
    corpus = sealed["snapshot"]["id"]

    checked = await call("evidence_quote", evidence_id=web, corpus_id=corpus, quote=ON_PAGE_4)
    assert checked["verdict"] == "absent"
    [elsewhere] = checked["found_elsewhere"]
    assert elsewhere["evidence_id"] == pdf and elsewhere["page"]["number"] == 4
    assert elsewhere["anchor"]["selector"][2] == FRAGMENT_4

    over = await call("evidence_quote", corpus_id=corpus, quote=ON_PAGE_4)
    assert [(m["evidence_id"], m["page"]["number"]) for m in over["matches"]] == [(pdf, 4)]
