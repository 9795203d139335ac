"""A sealed corpus as a WACZ package any web-archive replayer opens (docs/archive.md).

Layout (WACZ 1.1.1, the version `wacz validate` checks):

- `archive/data.warc.gz`: per capture a `request` and a `response` record (redirect hops
  included) with `WARC-IP-Address`, or a `revisit` when the same body was archived
  already; an upload is a `resource` record. Written by warcio, one gzip member a record.
- `indexes/index.cdx.gz` + `indexes/index.idx`: the compressed CDXJ index
  (cdxj-indexer, the indexer py-wacz uses), sorted with bounded memory.
- `pages/pages.jsonl`: one page per pinned revision (URL, title, time, our extracted text).
- `corpus/corpus.json`, `corpus/bibliography.json` (CSL-JSON), `corpus/bibliography.bib`.
- `datapackage.json` (SHA-256 and size of every file) and `datapackage-digest.json`.

Memory stays bounded: revisions are read one at a time and every part is spooled to files
in a scratch directory (`build_package`, a job of the heavy-read pool, which checks `should_stop`
between revisions); the ZIP is then made from those files in chunks as the reader takes
them (`WaczPackage.chunks`), never spooled a second time, so the scratch is about one
archive's size and is removed when the package is closed.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import IO, Any

from warcio.statusandheaders import StatusAndHeaders  # type: ignore[import-untyped]
from warcio.warcwriter import WARCWriter  # type: ignore[import-untyped]

from sosoapi.contract.projects import Snapshot
from sosoapi.research.corpora.citations import bibtex_entry, bibtex_key, csl_item, iso
from sosoapi.research.corpora.wacz_package import (
    WARC_NAME,
    Counts,
    ExportSummary,
    WaczPackage,
)
from sosoapi.research.heavy import ShouldStop, checkpoint, never
from sosoapi.research.ports import CapturesRepo, EvidenceRepo
from sosoapi.store.records import CaptureRecord, EvidenceRevisionRecord

BATCH = 50  # revisions read per query
# Headers that described the wire framing, not the body we keep (it is de-chunked), and
# with a body kept decoded (a PDF's, written to its file as decoded), its coding too.
FRAMING = {"transfer-encoding"}
DECODED = FRAMING | {"content-encoding"}


def _http_headers(capture: CaptureRecord) -> tuple[StatusAndHeaders, StatusAndHeaders]:
    meta = json.loads(capture.meta)
    response = meta["response"]
    dropped = DECODED if response.get("body_decoded") else FRAMING
    kept = [(k, v) for k, v in response["headers"] if k.lower() not in dropped]
    if response.get("body_truncated") or len(kept) != len(response["headers"]):
        kept = [(k, v) for k, v in kept if k.lower() != "content-length"]
        kept.append(("Content-Length", str(len(capture.body))))
    status = f"{response['status']} {response['reason']}".strip()
    reply = StatusAndHeaders(status, kept, protocol=response["http_version"])
    request = meta["request"]
    target = capture.url.split("/", 3)[3] if capture.url.count("/") >= 3 else ""
    asked = StatusAndHeaders(
        f"GET /{target} HTTP/1.1", [tuple(h) for h in request["headers"]], is_http_request=True
    )
    return reply, asked


class _Archive:
    """The WARC being written, and the offsets the replayer will look up."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.writer = WARCWriter(stream, gzip=True, warc_version="1.1")
        self.counts = Counts()

    def add(self, capture: CaptureRecord) -> None:
        self.counts.captures += 1
        date = capture.retrieved_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        base = {"WARC-Date": date}
        if capture.role == "upload":
            meta = json.loads(capture.meta)["upload"]
            record = self.writer.create_warc_record(
                capture.url,
                "resource",
                payload=io.BytesIO(capture.body),
                length=len(capture.body),  # known: warcio digests in place, no spool
                warc_content_type=meta.get("content_type") or "application/octet-stream",
                warc_headers_dict=base,
            )
            self._write(record)
            return
        reply, asked = _http_headers(capture)
        headers = {**base, "WARC-IP-Address": capture.ip or ""}
        earlier = self.counts.seen.get(capture.body_sha256)
        if earlier is not None and capture.body:
            record = self.writer.create_revisit_record(
                capture.url,
                self._sha1(capture.body),
                earlier[0],
                earlier[1],
                http_headers=reply,
                warc_headers_dict=headers,
            )
            self.counts.revisits += 1
        else:
            record = self.writer.create_warc_record(
                capture.url,
                "response",
                payload=io.BytesIO(capture.body),
                length=len(capture.body),
                http_headers=reply,
                warc_headers_dict=headers,
            )
            if capture.body:
                self.counts.seen[capture.body_sha256] = (capture.url, date)
        request = self.writer.create_warc_record(
            capture.url,
            "request",
            payload=io.BytesIO(b""),
            length=0,
            http_headers=asked,
            warc_headers_dict={
                **headers,
                "WARC-Concurrent-To": record.rec_headers.get_header("WARC-Record-ID"),
            },
        )
        self._write(record)
        self._write(request)

    def _write(self, record: Any) -> None:
        self.writer.write_record(record)
        self.counts.records += 1

    @staticmethod
    def _sha1(body: bytes) -> str:
        """The payload digest in WARC's customary form (sha1, base32), as warcio writes it:
        an identifier for revisit lookups, not a security check (SHA-256 is in the
        datapackage and corpus.json)."""
        sha1 = hashlib.sha1(body, usedforsecurity=False)
        return "sha1:" + base64.b32encode(sha1.digest()).decode("ascii")


def _revisions(
    evidence: EvidenceRepo, workspace_id: str, pins: list[tuple[str, int]], should_stop: ShouldStop
) -> Iterator[EvidenceRevisionRecord]:
    for start in range(0, len(pins), BATCH):
        checkpoint(should_stop)
        yield from evidence.revisions(workspace_id, pins[start : start + BATCH])


def _page(record: EvidenceRevisionRecord, content: dict[str, Any], url: str) -> dict[str, Any]:
    provenance = content.get("provenance") or {}
    page = {
        "id": f"{record.evidence_id}/{record.revision}",
        "url": url,
        "ts": provenance.get("retrieved_at") or iso(record.created_at),
        "text": content.get("text") or "",
    }
    if content.get("title"):
        page["title"] = content["title"]
    return page


def _write_parts(
    evidence: EvidenceRepo,
    captures: CapturesRepo,
    snapshot: Snapshot,
    corpus_revision: int,
    scratch: Path,
    should_stop: ShouldStop,
) -> Counts:
    """The WARC, pages and corpus files, spooled into `scratch`."""
    workspace_id = str(snapshot.workspace_id)
    pins = [(str(ref.evidence_id), ref.revision) for ref in snapshot.evidence]
    csl: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    with (
        open(scratch / WARC_NAME, "wb") as warc,
        open(scratch / "pages.jsonl", "w", encoding="utf-8") as pages,
        open(scratch / "bibliography.bib", "w", encoding="utf-8") as bib,
    ):
        archive = _Archive(warc)
        pages.write(json.dumps({"format": "json-pages-1.0", "id": "pages", "title": "Pages",
                                "hasText": True}) + "\n")  # fmt: skip
        for record in _revisions(evidence, workspace_id, pins, should_stop):
            checkpoint(should_stop)
            content = json.loads(record.content)
            kept = captures.of_revision(workspace_id, record.evidence_id, record.revision)
            for capture in kept:
                archive.add(capture)
            archive.counts.revisions += 1
            answered = [c.url for c in kept if c.role in ("response", "upload")]
            url = answered[0] if answered else content["provenance"].get("source_url") or ""
            pages.write(json.dumps(_page(record, content, url), ensure_ascii=False) + "\n")
            key = bibtex_key(record.evidence_id, record.revision)
            citation = json.loads(record.citation) if record.citation else None
            item = csl_item(key, content, citation, url)
            csl.append(item)
            bib.write(bibtex_entry(key, item) + "\n")
            items.append(
                {
                    "evidence_id": record.evidence_id,
                    "revision": record.revision,
                    "kind": record.kind,
                    "content_digest": record.digest,
                    "url": url,
                    "citation": citation,
                    "captures": [
                        {"role": c.role, "url": c.url, "body_sha256": c.body_sha256} for c in kept
                    ],
                }
            )
    (scratch / "bibliography.json").write_text(json.dumps(csl, ensure_ascii=False, indent=1))
    corpus = {
        "corpus_id": str(snapshot.id),
        "revision": corpus_revision,
        "workspace_id": workspace_id,
        "project_id": str(snapshot.project_id),
        "project_revision": snapshot.project_revision,
        "sealed_at": iso(snapshot.sealed_at),
        "coverage": snapshot.coverage,
        "missing_sources": snapshot.missing_sources,
        "method_version": snapshot.method_version,
        "evidence": items,
    }
    (scratch / "corpus.json").write_text(json.dumps(corpus, ensure_ascii=False, indent=1))
    return archive.counts


def _index(scratch: Path) -> None:
    """index.cdx.gz (CDXJ in gzip blocks) and index.idx, from the WARC just written.
    cdxj_indexer is imported here: it pulls in pyamf and pkg_resources, a third of a second
    that every server and CLI start would pay for an export few of them make."""
    from cdxj_indexer.main import CDXJIndexer  # type: ignore[import-untyped]

    with (
        open(scratch / "index.idx", "w", encoding="utf-8") as idx,
        open(scratch / "index.cdx.gz", "wb") as blocks,
    ):
        CDXJIndexer(
            idx,
            [str(scratch / WARC_NAME)],
            sort=True,
            compress=blocks,
            data_out_name="index.cdx.gz",
            filename=WARC_NAME,
            fields="referrer",
        ).process_all()


def build_package(
    evidence: EvidenceRepo,
    captures: CapturesRepo,
    snapshot: Snapshot,
    corpus_revision: int,
    should_stop: ShouldStop = never,
    scratch: Path | None = None,
) -> WaczPackage:
    """Spool the corpus's parts into `scratch`, or a new scratch directory (blocking: a
    heavy-read job); nothing is left behind if it fails or its caller goes away."""
    scratch = scratch or Path(tempfile.mkdtemp(prefix="sosoapi-export-"))
    try:
        counts = _write_parts(evidence, captures, snapshot, corpus_revision, scratch, should_stop)
        checkpoint(should_stop)
        _index(scratch)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return WaczPackage(scratch, snapshot, corpus_revision, counts)


def write_wacz(
    evidence: EvidenceRepo,
    captures: CapturesRepo,
    snapshot: Snapshot,
    corpus_revision: int,
    out: IO[bytes],
) -> ExportSummary:
    """Write the corpus's WACZ package to `out` (blocking: run it off the event loop)."""
    package = build_package(evidence, captures, snapshot, corpus_revision)
    try:
        package.write_to(out)
    finally:
        package.close()
    return package.summary
