"""The pure builder: a read PDF of tests/data/pdf made into the document tool's result.

Each outcome of docs/product.md ("Documents") on a real file, the result validated against
the package's published contract, and the page offsets checked against the whole text.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest

from sosoapi.contract.documents import DocumentResult, DocumentRetrieval, DocumentRetrieveOutput
from sosoapi.contract.vocabulary import Reason, State, Status
from sosoapi.extract.pdf import PdfDocument, read_pdf
from sosoapi.research.documents.result import document_result
from sosoapi.research.retrieval.finished import Finished
from tests.support.contract import assert_valid_output

PDF = Path(__file__).resolve().parents[1] / "data" / "pdf"
AT = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
URL = "https://papers.example/doc.pdf"
TOOL = "sosoapi_research_document_retrieve"


@cache
def read(name: str, max_pages: int) -> tuple[PdfDocument, str]:
    path = PDF / f"{name}.pdf"
    return read_pdf(path, max_pages=max_pages), hashlib.sha256(path.read_bytes()).hexdigest()


def built(name: str, **options: object) -> Finished[DocumentResult]:
    """The document as a read finishes it: its result, whole text and cause."""
    document, digest = read(name, int(options.pop("max_pages", 2_000)))  # type: ignore[call-overload]
    return document_result(
        document,
        source_url=URL,
        sha256=digest,
        retrieved_at=AT,
        settled_at=AT,
        **options,  # type: ignore[arg-type]
    )


def build(name: str, **options: object) -> DocumentResult:
    return built(name, **options).result


def assert_valid(result: DocumentResult) -> None:
    """The result, inside a settled receipt, is what the published contract admits."""
    receipt = DocumentRetrieveOutput(
        retrieval=DocumentRetrieval(
            id="30000000-0000-4000-8000-000000000001",
            workspace_id="11111111-1111-4111-8111-111111111111",
            mutation_id="40000000-0000-4000-8000-000000000001",
            state=State.COMPLETED,
            kind="pdf_text",
            created_at=AT,
            settled_at=AT,
            valid_until=AT,
            result=result,
            evidence=None,
        )
    )
    assert_valid_output(TOOL, receipt.wire())


def assert_pages_slice_the_whole(finished: Finished[DocumentResult]) -> None:
    whole, pages = finished.whole_text, finished.result.pages
    texts = [whole[p.start : p.end] for p in pages]
    assert "\n\n".join(t for t in texts if t) == whole
    assert [p.number for p in pages] == list(range(1, len(pages) + 1))


def test_a_readable_document_is_ready_with_its_metadata_pages_and_provenance() -> None:
    result = build("pypdf-r6-owner-password")  # an owner password only: it reads
    assert_valid(result)
    assert (result.status, result.reason, result.warnings) == (Status.READY, None, [])
    assert result.text == "pdf encryption test password: asdfzxcv"
    assert result.authors == ["cheng"]
    assert result.date == "2022-04-14T13:24:21+05:24"
    assert result.page_count == len(result.pages) == 1
    assert result.pages[0].model_dump() == {
        "number": 1, "label": None, "start": 0, "end": len(result.text), "has_text": True,
    }  # fmt: skip
    provenance = result.provenance
    assert provenance.source_url == URL and provenance.mime_type == "application/pdf"
    assert provenance.content_kind == "document_text"
    expected = hashlib.sha256((PDF / "pypdf-r6-owner-password.pdf").read_bytes()).hexdigest()
    assert provenance.sha256 == expected


@pytest.mark.parametrize("name", ["pypdf-r4-aes-user-password", "pdfminer-aes-256"])
def test_a_user_password_is_blocked_login_required_with_nothing_kept(name: str) -> None:
    result = build(name)
    assert_valid(result)
    assert (result.status, result.reason) == (Status.BLOCKED, Reason.LOGIN_REQUIRED)
    assert (result.text, result.pages, result.page_count, result.title) == ("", [], 0, None)
    assert result.provenance.content_kind == "none"


def test_a_scan_is_empty_no_text_with_every_page_marked() -> None:
    result = build("textract-ocr_text")
    assert_valid(result)
    assert (result.status, result.reason) == (Status.EMPTY, Reason.NO_TEXT)
    assert result.text == ""
    assert [(p.number, p.has_text) for p in result.pages] == [(1, False), (2, False), (3, False)]
    assert result.provenance.content_kind == "metadata_only"  # its Info names a title


def test_a_partly_scanned_document_is_partial_source_partial() -> None:
    finished = built("doctor-vector-pdf")
    result = finished.result
    assert_valid(result)
    assert result.status == Status.PARTIAL  # its text is also cut for the receipt
    assert Reason.SOURCE_PARTIAL in [result.reason, *result.warnings]
    without = [p.number for p in result.pages if not p.has_text]
    assert without and len(without) < result.page_count
    assert all(p.start == p.end for p in result.pages if not p.has_text)
    assert_pages_slice_the_whole(finished)


@pytest.mark.parametrize(
    "name", ["pdfminer-zen_of_python_corrupted", "pypdf-selenium-pypdf-issue-177"]
)
def test_a_broken_file_reads_what_it_can_or_is_unsupported_content(name: str) -> None:
    finished = built(name)
    result = finished.result
    assert_valid(result)
    if result.status == Status.UNSUPPORTED:
        assert result.reason == Reason.UNSUPPORTED_CONTENT
        assert result.provenance.source_url is None and result.pages == []
    else:
        assert result.status in (Status.READY, Status.PARTIAL) and result.text
        assert_pages_slice_the_whole(finished)


def test_the_page_bound_keeps_the_first_pages_as_partial_response_too_large() -> None:
    finished = built("docling-normal_4pages", max_pages=2)
    result = finished.result
    assert_valid(result)
    assert (result.status, result.reason) == (Status.PARTIAL, Reason.RESPONSE_TOO_LARGE)
    assert result.page_count == 4 and [p.number for p in result.pages] == [1, 2]
    assert_pages_slice_the_whole(finished)


def test_a_truncated_body_that_pdfium_cannot_open_is_unavailable_response_too_large(
    tmp_path: Path,
) -> None:
    cut = tmp_path / "cut.pdf"
    cut.write_bytes((PDF / "unstructured-multi-column-2p.pdf").read_bytes()[:5_000])
    result = document_result(
        read_pdf(cut), source_url=URL, sha256=None, retrieved_at=AT, settled_at=AT,
        truncated=True,
    ).result  # fmt: skip
    assert_valid(result)
    assert result.status in (Status.UNAVAILABLE, Status.PARTIAL)
    assert result.reason == Reason.RESPONSE_TOO_LARGE


def test_the_receipt_text_is_cut_and_the_evidence_keeps_the_whole_with_page_offsets() -> None:
    whole = read("doctor-vector-pdf", 2_000)[0].text
    assert len(whole) > 25_000
    finished = built("doctor-vector-pdf")
    result = finished.result
    assert result.reason == Reason.TEXT_LIMITED
    assert len(result.text) <= 20_000 and whole.startswith(result.text)
    assert finished.whole_text == whole
    assert_pages_slice_the_whole(finished)
    bounded = built("doctor-vector-pdf", whole_max=22_000)  # the evidence's own bound
    assert_valid(bounded.result)
    kept = bounded.whole_text
    assert len(kept) <= 22_000 and whole.startswith(kept)
    assert all(p.end <= len(kept) for p in bounded.result.pages)
    assert bounded.result.pages[-1].start == len(kept)  # the cut-off pages end there


def test_the_declared_language_is_the_catalogs_and_another_asked_is_a_mismatch() -> None:
    declared = build("docling-right_to_left_02")
    assert declared.provenance.language_source == "publisher_declared"
    language = declared.provenance.language
    assert language is not None
    other = "ja" if not language.startswith("ja") else "de"
    mismatch = build("docling-right_to_left_02", language=other)
    assert_valid(mismatch)
    assert Reason.LANGUAGE_MISMATCH in [mismatch.reason, *mismatch.warnings]
    assert build("docling-right_to_left_02", language=language).reason != (Reason.LANGUAGE_MISMATCH)


def test_a_document_without_a_catalog_lang_has_no_language_guessed() -> None:
    result = build("unstructured-multi-column-2p")
    assert result.provenance.language is None
    assert result.provenance.language_source == "unknown"
