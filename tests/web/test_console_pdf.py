"""The console's page of PDF evidence (issue 37 item 5): the pages of a real PDF read by
the document tool through the gate, each with its number, label, span of the text and
whether it has a text layer, and the text under each page's heading; on both stores."""

from __future__ import annotations

import re

import httpx

from sosoapi.application import Application
from tests.documents.support import PDF, document_args, retrieve_document, stored
from tests.support.origin import HTTPSOrigin, Route
from tests.web.test_console import Inside, assert_inert, get, sign_in

PAPER = PDF / "unstructured-layout-parser-paper-with-empty-pages.pdf"  # pages 2 and 3 empty


async def test_a_pdf_evidence_page_shows_its_pages_and_which_need_ocr(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    client: httpx.AsyncClient,
) -> None:
    ws, token = owner
    origin.routes["/paper.pdf"] = Route(PAPER.read_bytes(), content_type="application/pdf")
    receipt = await retrieve_document(
        application, token, document_args(ws, origin.url("/paper.pdf"))
    )
    ref = receipt["evidence"]
    revision = stored(application, ws, receipt)
    assert [p.has_text for p in revision.pages] == [True, False, False, True]
    await sign_in(client, token)
    html = await get(client, f"/console/workspaces/{ws}/evidence/{ref['evidence_id']}")
    page = assert_inert(html)
    words = page.words
    assert "Kind pdf_text (document_text)" in words and "Media type application/pdf" in words
    assert "4 pages read; 2 without a text layer" in words
    rows = [" ".join(re.sub("<[^>]+>", " ", r).split()) for r in re.findall("<tr>(.*?)</tr>", html)]
    rows = rows[1:]  # after the head
    first, second, fourth = revision.pages[0], revision.pages[1], revision.pages[3]
    assert rows[0] == f"1 {first.start}–{first.end} yes"
    assert rows[1] == f"2 {second.start}–{second.end} none (a scan: needs OCR)"
    assert rows[3] == f"4 {fourth.start}–{fourth.end} yes"
    # a heading for every page (linked to the source at that page), and under each page
    # with text exactly that page's span of the whole text
    heads = Inside(html, "h3").found
    assert heads == ["page 1", "page 2", "page 3", "page 4"]
    texts = Inside(html, "div", within="text").region
    assert texts == [
        revision.text[first.start : first.end],
        revision.text[fourth.start : fourth.end],
    ]
    assert {"href": "#page-4"} in [
        {k: v for k, v in a.items() if k == "href"} for a in page.links()
    ]
    search = await get(client, f"/console/workspaces/{ws}/search")
    assert 'value="pdf_text"' in search  # the search form's kind filter offers PDFs
