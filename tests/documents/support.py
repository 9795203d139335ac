"""The documents tests' shared parts: the real PDFs, what each must settle as, one call."""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sosoapi.application import Application
from sosoapi.contract.vocabulary import OPEN_STATES
from sosoapi.research.evidence.scope import StoredRevision, read_revision
from tests.support.calls import run

TOOL = "sosoapi_research_document_retrieve"
PDF = Path(__file__).resolve().parents[1] / "data" / "pdf"
# The team's whole dev set, when it is beside the project (bench/documents.py reads it too).
DEV = Path(os.environ.get("SOSOAPI_BENCH_DATA", PDF.parents[3] / "shared" / "data")) / "pdf-dev"

# What tests/data/pdf/README.md says each copy shows (the dev set's `special` tags).
LOCAL_TAGS: dict[str, tuple[str, ...]] = {
    "docling-normal_4pages": ("cjk", "metadata"),
    "docling-right_to_left_02": ("rtl", "lang", "metadata"),
    "docling-amt_handbook_sample": ("metadata",),
    "doctor-vector-pdf": ("partial-text-layer",),
    "pdfminer-aes-256": ("encrypted-user-password", "lang"),
    "pdfminer-issue_566_test_2": ("cjk", "lang"),
    "pdfminer-zen_of_python_corrupted": ("broken",),
    "pdfplumber-scotus-transcript-p1": ("metadata",),
    "pypdf-r4-aes-user-password": ("encrypted-user-password",),
    "pypdf-r6-owner-password": ("encrypted-owner-only",),
    "pypdf-toy": (),
    "pypdf-selenium-pypdf-issue-177": ("broken",),
    "textract-ocr_text": ("scanned-no-text-layer", "metadata", "encrypted-owner-only"),
    "unstructured-layout-parser-paper-with-empty-pages": ("empty-pages",),
    "unstructured-multi-column-2p": ("two-column",),
}


@dataclass(frozen=True, slots=True)
class Doc:
    name: str
    path: Path
    tags: tuple[str, ...]
    no_text: bool  # no page has a text layer (the dev set's PDFium character counts)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def by_name_path(name: str) -> Path:
    """A copy in tests/data/pdf, by name."""
    return PDF / f"{name}.pdf"


def local_docs() -> list[Doc]:
    scans = {"textract-ocr_text"}
    return [Doc(n, PDF / f"{n}.pdf", t, n in scans) for n, t in sorted(LOCAL_TAGS.items())]


def dev_docs() -> list[Doc]:
    """Every document of the dev set, when it is there (none otherwise)."""
    if not (DEV / "index.json").is_file():
        return []
    index = json.loads((DEV / "index.json").read_text(encoding="utf-8"))["documents"]
    return [
        Doc(
            Path(item["file"]).stem,
            DEV / item["file"],
            tuple(item["special"]),
            not any(item["pdf_facts"]["text_chars_per_page"] or [0]),
        )
        for item in index
    ]


def expected(doc: Doc) -> set[tuple[str, str | None]]:
    """The (status, reason) pairs docs/product.md ("Documents") allows for `doc`."""
    if "encrypted-user-password" in doc.tags:
        return {("blocked", "login_required")}
    if doc.no_text:
        return {("empty", "no_text")}
    if "partial-text-layer" in doc.tags:
        return {("partial", "source_partial"), ("partial", "text_limited")}
    readable = {("ready", None), ("partial", "text_limited")}
    if "broken" in doc.tags:
        return readable | {("partial", "source_partial"), ("unsupported", "unsupported_content")}
    return readable


def document_args(workspace_id: str, url: str, **extra: str) -> dict[str, str]:
    return {"workspace_id": workspace_id, "mutation_id": str(uuid.uuid4()), "url": url, **extra}


SETTLE_SECONDS = 120.0  # how long a test replays an open receipt before it reports it


async def retrieve_document(
    app: Application, token: str, arguments: dict[str, Any], transport: str = "http"
) -> dict[str, Any]:
    """One document retrieve, its output validated against the package's contract, called
    again with the same `mutation_id` while its receipt is open, as a client does (a loaded
    machine can take longer than one call's wait to start a parse worker)."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        data, _ = await run(app, token, TOOL, arguments, transport)
        receipt: dict[str, Any] = data["retrieval"]
        if receipt["state"] not in OPEN_STATES or time.monotonic() > deadline:
            return receipt


def stored(app: Application, workspace_id: str, receipt: dict[str, Any]) -> StoredRevision:
    evidence = receipt["evidence"]
    return read_revision(
        app.store.evidence, workspace_id, evidence["evidence_id"], evidence["revision"]
    )


def assert_pages_slice(revision: StoredRevision, page_count: int) -> None:
    """Each page's offsets slice the evidence's whole text, pages apart by a blank line."""
    assert revision.pages and len(revision.pages) <= page_count
    texts = [revision.text[p.start : p.end] for p in revision.pages]
    assert "\n\n".join(t for t in texts if t) == revision.text
    assert [p.number for p in revision.pages] == list(range(1, len(revision.pages) + 1))
    assert all(p.start == p.end for p in revision.pages if not p.has_text)
