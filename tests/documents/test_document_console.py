"""The review console reads pdf_text evidence and a document's receipt without error: the
retrievals list, the receipt, the evidence page, search and the diff page, on both stores
(page numbers beside matches are issue 37 item 4's, elsewhere)."""

from __future__ import annotations

import httpx

from sosoapi.application import Application
from tests.documents.support import by_name_path, document_args, retrieve_document
from tests.support.origin import HTTPSOrigin, Route
from tests.web.conftest import console_app, sign_in


async def test_the_console_shows_a_pdf_receipt_and_its_evidence(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/paper.pdf"] = Route(
        by_name_path("unstructured-multi-column-2p").read_bytes(), content_type="application/pdf"
    )
    origin.routes["/scan.pdf"] = Route(
        by_name_path("textract-ocr_text").read_bytes(), content_type="application/pdf"
    )
    paper = await retrieve_document(application, token,
                                    document_args(ws, origin.url("/paper.pdf")))  # fmt: skip
    scan = await retrieve_document(application, token,
                                   document_args(ws, origin.url("/scan.pdf")))  # fmt: skip
    evidence_id = paper["evidence"]["evidence_id"]
    origin.routes["/paper.pdf"] = Route(  # the same URL, another document: revision 2
        by_name_path("unstructured-layout-parser-paper-with-empty-pages").read_bytes(),
        content_type="application/pdf",
    )
    again = await retrieve_document(application, token,
                                    document_args(ws, origin.url("/paper.pdf")))  # fmt: skip
    assert again["evidence"] == {"evidence_id": evidence_id, "revision": 2}
    base = f"/console/workspaces/{ws}"
    transport = httpx.ASGITransport(app=console_app(application))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await sign_in(client, token)
        for path in (
            f"{base}/retrievals",
            f"{base}/retrievals/{paper['id']}",
            f"{base}/retrievals/{scan['id']}",
            f"{base}/evidence/{evidence_id}?revision=1",
            f"{base}/evidence/{evidence_id}/diff?from=1&to=2",
            f"{base}/search?q=retrieval",
        ):
            page = await client.get(path)
            assert page.status_code == 200, (path, page.text[:500])
        shown = (await client.get(f"{base}/evidence/{evidence_id}?revision=1")).text
        assert "pdf_text" in shown
        listed = (await client.get(f"{base}/retrievals/{scan['id']}")).text
        assert "no_text" in listed
