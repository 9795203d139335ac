"""The document tool end to end: real PDFs through the real egress gate from a loopback
HTTPS origin (Content-Type application/pdf), settled, stored and read back, on SQLite and
PostgreSQL, every output validated against the package's published contract.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from sosoapi.application import Application
from sosoapi.contract.errors import ServiceError
from sosoapi.mcp.presenters import render
from sosoapi.research.documents.reading import private_file
from tests.documents.support import (
    Doc,
    assert_pages_slice,
    dev_docs,
    document_args,
    expected,
    local_docs,
    retrieve_document,
    stored,
)
from tests.support.calls import args as seed_args
from tests.support.calls import call as seed_call
from tests.support.calls import run
from tests.support.origin import HTTPSOrigin, Route

PDF_TYPE = "application/pdf"


def serve(origin: HTTPSOrigin, doc: Doc, content_type: str | None = PDF_TYPE) -> str:
    path = f"/docs/{doc.name}.pdf"
    origin.routes[path] = Route(doc.path.read_bytes(), content_type=content_type)
    return origin.url(path)


def by_name(name: str) -> Doc:
    return next(doc for doc in local_docs() if doc.name == name)


async def settle(application: Application, owner: tuple[str, str], doc: Doc, url: str) -> dict:
    """One document read, checked against every rule its outcome obeys."""
    workspace_id, token = owner
    receipt = await retrieve_document(application, token, document_args(workspace_id, url))
    assert receipt["state"] == "completed" and receipt["kind"] == "pdf_text", receipt
    result = receipt["result"]
    assert (result["status"], result["reason"]) in expected(doc), (doc.name, result["status"],
                                                                    result["reason"])  # fmt: skip
    usable = result["status"] in ("ready", "partial")
    assert (receipt["evidence"] is not None) is usable, doc.name
    provenance = result["provenance"]
    if result["reason"] != "unsupported_content":
        assert provenance["sha256"] == doc.sha256 and provenance["source_url"] == url
        assert provenance["mime_type"] == PDF_TYPE
    if usable:
        revision = stored(application, workspace_id, receipt)
        assert revision.content.kind == "pdf_text"
        assert_pages_slice(revision, result["page_count"])
        assert result["text"] and revision.text.startswith(result["text"])
    if result["status"] == "empty":
        assert result["pages"] and not any(p["has_text"] for p in result["pages"])
    return receipt


@pytest.mark.slow(reason="reads 68 real PDFs (up to 3.6 MB, 30 pages) through the gate")
async def test_every_real_pdf_settles_as_its_outcome_says(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """The copies in tests/data/pdf always, and the whole dev set when it is beside the
    project: a user password blocked, scans empty, a partly scanned file partial, the rest
    read (a broken file reads what it can or is unsupported_content)."""
    docs = {doc.name: doc for doc in local_docs() + dev_docs()}
    outcomes = {}
    for doc in docs.values():
        receipt = await settle(application, owner, doc, serve(origin, doc))
        outcomes[doc.name] = receipt["result"]["status"]
    assert outcomes["pypdf-r6-owner-password"] == "ready"  # an owner password alone reads
    assert outcomes["textract-ocr_text"] == "empty"
    assert outcomes["doctor-vector-pdf"] == "partial"


async def test_a_scan_is_empty_no_text_and_its_advice_names_ocr(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    url = serve(origin, by_name("textract-ocr_text"))
    outcome = await application.research.call(
        "sosoapi_research_document_retrieve", token, document_args(workspace_id, url)
    )
    text = render(outcome.output, requested_url=url, cause=outcome.cause)
    assert "no_text, no_text_layer" in text and "OCR" in text
    assert "without a text layer: 1, 2, 3" in text


async def test_a_partly_scanned_pdf_names_its_pages_needing_ocr(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    doc = by_name("doctor-vector-pdf")
    receipt = await settle(application, owner, doc, serve(origin, doc))
    result = receipt["result"]
    assert "source_partial" in [result["reason"], *result["warnings"]]
    scanned = [p["number"] for p in result["pages"] if not p["has_text"]]
    assert scanned and scanned[-1] == result["page_count"]  # its last pages are drawn
    workspace_id, token = owner
    replay = await application.research.call(
        "sosoapi_research_document_retrieve",
        token,
        {
            "workspace_id": workspace_id,
            "mutation_id": receipt["mutation_id"],
            "url": receipt_url(receipt),
        },
    )
    assert f"without a text layer: {', '.join(map(str, scanned))}" in render(replay.output)


def receipt_url(receipt: dict) -> str:
    return str(receipt["result"]["provenance"]["source_url"])


async def test_a_user_password_is_blocked_login_required_and_keeps_no_evidence(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    receipt = await settle(application, owner, by_name("pypdf-r4-aes-user-password"),
                           serve(origin, by_name("pypdf-r4-aes-user-password")))  # fmt: skip
    assert receipt["evidence"] is None and receipt["result"]["text"] == ""
    listed, _ = await run(application, owner[1], "sosoapi_research_evidence_list",
                          {"workspace_id": owner[0]})  # fmt: skip
    assert listed["items"] == []


async def test_a_replay_by_mutation_id_returns_the_same_receipt_without_reading_again(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    url = serve(origin, by_name("pypdf-toy"))
    arguments = document_args(workspace_id, url)
    first = await retrieve_document(application, token, arguments)
    again = await retrieve_document(application, token, arguments)
    assert again == first and first["result"]["status"] == "ready"
    assert origin.hits["/docs/pypdf-toy.pdf"] == 1
    with pytest.raises(ServiceError) as refused:  # the same key for another URL
        await retrieve_document(application, token, {**arguments, "url": url + "?v=2"})
    assert refused.value.code == "conflict"


async def test_octet_stream_is_sniffed_and_other_media_name_the_seed_tool(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    toy = by_name("pypdf-toy")
    octet = await retrieve_document(application, token, document_args(
        workspace_id, serve(origin, toy, "application/octet-stream")))  # fmt: skip
    assert octet["result"]["status"] == "ready"
    origin.routes["/docs/page.html"] = Route(b"<html><body>No PDF</body></html>")
    html = await application.research.call(
        "sosoapi_research_document_retrieve", token,
        document_args(workspace_id, origin.url("/docs/page.html")),
    )  # fmt: skip
    result = html.output.wire()["retrieval"]["result"]
    assert (result["status"], result["reason"]) == ("unsupported", "unsupported_media")
    assert "sosoapi_research_evidence_retrieve" in render(html.output, cause=html.cause)
    origin.routes["/docs/liar.pdf"] = Route(b"<html>not a pdf</html>", content_type=PDF_TYPE)
    liar_url = origin.url("/docs/liar.pdf")
    liar = await retrieve_document(application, token, document_args(workspace_id, liar_url))
    assert (liar["result"]["status"], liar["result"]["reason"]) == (
        "unsupported", "unsupported_content")  # fmt: skip
    assert liar["evidence"] is None


async def test_the_seed_retrieve_of_a_pdf_stays_unsupported_media_and_names_the_document_tool(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    url = serve(origin, by_name("pypdf-toy"))
    receipt = await seed_call(application, token, seed_args(workspace_id, url))
    assert (receipt["result"]["status"], receipt["result"]["reason"]) == (
        "unsupported", "unsupported_media")  # fmt: skip
    outcome = await application.research.call(
        "sosoapi_research_evidence_retrieve", token, seed_args(workspace_id, url)
    )
    text = render(outcome.output, requested_url=url, cause=outcome.cause)
    assert "call sosoapi_research_document_retrieve with this same url" in text
    assert url in text  # the line names the URL to pass on


@pytest.mark.parametrize("receipt_overrides", [{"document_max_pages": 2}])
async def test_the_page_bound_keeps_the_first_pages_partial_response_too_large(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    url = serve(origin, by_name("docling-normal_4pages"))
    receipt = await retrieve_document(application, token, document_args(workspace_id, url))
    result = receipt["result"]
    assert (result["status"], result["reason"]) == ("partial", "response_too_large")
    assert result["page_count"] == 4 and [p["number"] for p in result["pages"]] == [1, 2]
    assert_pages_slice(stored(application, workspace_id, receipt), 4)


@pytest.mark.parametrize("receipt_overrides", [{"document_max_bytes": 4096}])
async def test_a_body_over_the_byte_bound_settles_response_too_large(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    doc = by_name("unstructured-multi-column-2p")
    assert doc.path.stat().st_size > 4096
    receipt = await retrieve_document(
        application, token, document_args(workspace_id, serve(origin, doc))
    )
    result = receipt["result"]
    assert result["reason"] == "response_too_large"
    assert result["status"] in ("unavailable", "partial")
    assert (receipt["evidence"] is None) is (result["status"] == "unavailable")


async def test_a_pdf_upload_becomes_pdf_text_evidence_with_pages(
    application: Application, owner: tuple[str, str]
) -> None:
    workspace_id, token = owner
    home = application.settings.home
    local = Path(home) / "paper.pdf"
    local.write_bytes(by_name("unstructured-multi-column-2p").path.read_bytes())
    arguments = {"workspace_id": workspace_id, "mutation_id": document_args("", "")[
        "mutation_id"], "path": str(local), "kind": "pdf_text"}  # fmt: skip
    data, _ = await run(application, token, "sosoapi_research_evidence_upload", arguments,
                        transport="stdio")  # fmt: skip
    receipt = data["retrieval"]
    result = receipt["result"]
    assert (receipt["kind"], result["kind"], result["status"]) == ("pdf_text", "pdf_text", "ready")
    assert result["provenance"]["source_url"] is None
    assert result["provenance"]["sha256"] == by_name("unstructured-multi-column-2p").sha256
    assert_pages_slice(stored(application, workspace_id, receipt), 2)


def test_the_body_goes_to_a_private_file_deleted_after() -> None:
    with private_file() as (path, sink):
        sink.write(b"%PDF-1.7 bytes")
        sink.handle.flush()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert path.read_bytes() == b"%PDF-1.7 bytes" and sink.is_pdf
        assert path.parent.parent == Path(tempfile.gettempdir())
    assert not path.exists() and not path.parent.exists()
    assert os.listdir(tempfile.gettempdir()).count(path.parent.name) == 0
