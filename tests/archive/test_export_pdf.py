"""A sealed corpus of PDF evidence exported as WACZ (issue 37 item 5), on both stores.

Real PDFs of tests/data/pdf are read by the document tool through the real egress gate
from a loopback origin (one behind a redirect, one sent gzip-encoded) and by a stdio
upload; the package keeps each exchange with the PDF's bytes as fetched, and its
bibliography cites each document by its own metadata.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
from warcio.archiveiterator import ArchiveIterator

from sosoapi.application import Application
from sosoapi.research.corpora.wacz_package import ExportSummary
from sosoapi.research.retrieval.uploads import UPLOAD_URL
from tests.documents.support import document_args, retrieve_document, stored
from tests.support.archive import export_to, key, seal
from tests.support.calls import run
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import make_settings, owner_token
from tests.support.wacz_check import fixity, jsonl, records, validate

PDF = Path(__file__).resolve().parents[1] / "data" / "pdf"
PAPER = PDF / "docling-picture_classification.pdf"  # title, two authors, date, subject
ZEN = PDF / "pdfminer-zen_of_python_corrupted.pdf"  # title "zen_of_python.txt": escaped
MULTI = PDF / "unstructured-multi-column-2p.pdf"  # no title, no author: nothing invented


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def pdf_corpus(
    app: Application, token: str, ws: str, origin: HTTPSOrigin
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Three PDFs read through the gate and one uploaded, sealed: (snapshot, receipts)."""
    origin.routes["/latest.pdf"] = Route(b"", status=302, headers={"Location": "/paper.pdf"})
    origin.routes["/paper.pdf"] = Route(PAPER.read_bytes(), content_type="application/pdf")
    origin.routes["/zen.pdf"] = Route(
        gzip.compress(ZEN.read_bytes()),
        content_type="application/pdf",
        headers={"Content-Encoding": "gzip"},
    )
    receipts = [
        await retrieve_document(app, token, document_args(ws, origin.url(path)))
        for path in ("/latest.pdf", "/zen.pdf")
    ]
    local = Path(app.settings.home) / "columns.pdf"
    local.write_bytes(MULTI.read_bytes())
    uploaded, _ = await run(
        app,
        token,
        "sosoapi_research_evidence_upload",
        {"workspace_id": ws, "mutation_id": key(), "path": str(local), "kind": "pdf_text"},
        transport="stdio",
    )
    receipts.append(uploaded["retrieval"])
    assert [r["result"]["status"] for r in receipts] == ["ready"] * 3, receipts
    ids = [r["evidence"]["evidence_id"] for r in receipts]
    return await seal(app, token, ws, ids), receipts


def warc_responses(package: zipfile.ZipFile) -> dict[str, Any]:
    """The response and resource records by URI: HTTP headers and the payload as archived."""
    found: dict[str, Any] = {}
    with package.open("archive/data.warc.gz") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type in ("response", "resource"):
                uri = record.rec_headers.get_header("WARC-Target-URI")
                found[uri] = (record.rec_type, record.http_headers, record.raw_stream.read(),
                              record.rec_headers.get_header("Content-Type"))  # fmt: skip
    return found


@pytest.mark.slow(reason="reads three real PDFs through the gate and the upload, then exports")
async def test_a_pdf_corpus_exports_its_exchanges_and_cites_each_pdf_by_its_metadata(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, tmp_path: Path
) -> None:
    ws, token = owner
    snapshot, receipts = await pdf_corpus(application, token, ws, origin)
    target = tmp_path / "corpus.wacz"
    summary = await export_to(application, token, ws, snapshot["id"], target)
    check_archive(target, summary, receipts, origin)
    check_bibliography(target, receipts, origin)


def check_archive(
    target: Path, summary: ExportSummary, receipts: list[dict[str, Any]], origin: HTTPSOrigin
) -> None:
    """Each exchange kept with the PDF's bytes as fetched (decoded, and said so)."""
    # the redirect and the paper, the gzip-sent file, the upload
    assert (summary.revisions, summary.captures, summary.revisits) == (3, 4, 0)
    checked = validate(target)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(target) as package:
        fixity(package)
        read = records(package)
        archived = warc_responses(package)
        pages = jsonl(package, "pages/pages.jsonl")
        corpus_json = json.loads(package.read("corpus/corpus.json"))
    paper_url, zen_url = origin.url("/paper.pdf"), origin.url("/zen.pdf")
    assert [r["type"] for r in read if r["uri"] != UPLOAD_URL] == ["response", "request"] * 3
    assert [r["uri"] for r in read if r["type"] == "response"] == [
        origin.url("/latest.pdf"), paper_url, zen_url
    ]  # fmt: skip
    kind, headers, body, _ = archived[paper_url]
    assert kind == "response" and hashlib.sha256(body).hexdigest() == sha256(PAPER)
    assert headers.get_statuscode() == "200"
    assert headers.get_header("Content-Type") == "application/pdf"
    # sent gzip-encoded, kept as the gate decoded it: the archive says what it holds
    kind, headers, body, _ = archived[zen_url]
    assert body == ZEN.read_bytes() and headers.get_header("Content-Encoding") is None
    assert headers.get_header("Content-Length") == str(len(body))
    kind, _, body, media = archived[UPLOAD_URL]
    assert (kind, media, body) == ("resource", "application/pdf", MULTI.read_bytes())
    for item, receipt in zip(corpus_json["evidence"], receipts, strict=True):
        assert item["kind"] == "pdf_text" and item["citation"] is None
        provenance = receipt["result"]["provenance"]
        answered = [c for c in item["captures"] if c["role"] in ("response", "upload")]
        assert [c["body_sha256"] for c in answered] == [provenance["sha256"]]
    assert [p["url"] for p in pages[1:]] == [paper_url, zen_url, UPLOAD_URL]
    assert pages[1]["title"] == receipts[0]["result"]["title"]
    assert pages[1]["text"].startswith(receipts[0]["result"]["text"][:200])


def check_bibliography(target: Path, receipts: list[dict[str, Any]], origin: HTTPSOrigin) -> None:
    """A `document` / `@misc` entry per PDF from its own metadata; nothing invented."""
    with zipfile.ZipFile(target) as package:
        csl = json.loads(package.read("corpus/bibliography.json"))
        bib = package.read("corpus/bibliography.bib").decode()
    paper, zen, columns = (r["result"] for r in receipts)
    assert [i["type"] for i in csl] == ["document"] * 3
    cited = csl[0]
    assert paper["title"] == "An Optimal Centralized Carbon Dioxide Repository for Florida, USA"
    assert cited["title"] == paper["title"] and cited["URL"] == origin.url("/paper.pdf")
    assert cited["author"] == [
        {"family": "Poiencot", "given": "Brandon"},
        {"family": "Brown", "given": "Christopher"},
    ]
    assert cited["issued"] == {"date-parts": [[2025, 1, 24]]}  # the document's own date
    assert cited["abstract"] == paper["subject"] and paper["subject"].startswith("For over")
    assert cited["accessed"]["date-parts"][0][0] >= 2024
    assert "container-title" not in cited and "note" not in cited
    # what a document does not say is left out, never filled in
    assert csl[2]["URL"] == UPLOAD_URL and columns["title"] is None
    assert {"title", "author", "abstract"}.isdisjoint(csl[2])
    parsed = bibtexparser.parse_string(bib)
    assert not parsed.failed_blocks
    entries = [{f.key: f.value for f in e.fields} | {"type": e.entry_type} for e in parsed.entries]
    assert [e["type"] for e in entries] == ["misc"] * 3 and "@online{" not in bib
    assert entries[0]["author"] == "Poiencot, Brandon and Brown, Christopher"
    assert entries[0]["date"] == "2025-01-24" and entries[0]["url"] == origin.url("/paper.pdf")
    assert entries[0]["abstract"].startswith("For over a decade")
    # the existing escapes: the title's underscores cannot start LaTeX subscripts
    assert zen["title"] == "zen_of_python.txt"
    assert entries[1]["title"] == r"zen\_of\_python.txt"


async def test_a_pdf_past_the_capture_bound_keeps_its_first_bytes_and_says_it_was_cut(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin
) -> None:
    """A PDF's capture keeps what a page's would (SOSOAPI_EGRESS_MAX_BODY_BYTES), and the
    archive's Content-Length says so; the evidence is read from the whole file, under the
    document bound."""
    bound = 64 * 1024
    egress = {**origin.egress_env(), "SOSOAPI_EGRESS_MAX_BODY_BYTES": str(bound)}
    app = Application(make_settings(database_url, tmp_path, egress))
    origin.routes["/paper.pdf"] = Route(PAPER.read_bytes(), content_type="application/pdf")
    async with held_open(app.running()):
        ws, token = owner_token(app)
        receipt = await retrieve_document(app, token, document_args(ws, origin.url("/paper.pdf")))
        ref = receipt["evidence"]
        kept = app.store.captures.of_revision(ws, ref["evidence_id"], ref["revision"])
        snapshot = await seal(app, token, ws, [ref["evidence_id"]])
        await export_to(app, token, ws, snapshot["id"], tmp_path / "cut.wacz")
    with zipfile.ZipFile(tmp_path / "cut.wacz") as package:
        _, headers, body, _ = warc_responses(package)[origin.url("/paper.pdf")]
    assert body == PAPER.read_bytes()[:bound]  # the archive says how much it holds
    assert headers.get_header("Content-Length") == str(bound)
    assert receipt["result"]["status"] == "ready" and receipt["result"]["page_count"] == 2
    assert receipt["result"]["provenance"]["sha256"] == sha256(PAPER)
    assert [c.role for c in kept] == ["response"]
    assert kept[0].body == PAPER.read_bytes()[:bound]
    response = json.loads(kept[0].meta)["response"]
    assert response["body_truncated"] is True and response["body_decoded"] is True
    revision = stored(app, ws, receipt)
    assert revision.text.startswith("Figures Example") and revision.text.endswith("et ea rebum.")
    assert [p.end for p in revision.pages][-1] == len(revision.text) > 3_000
