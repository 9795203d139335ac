"""WACZ export of a sealed corpus read through the real egress path (both stores)."""

from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path

import pytest

from sosoapi.application import Application
from sosoapi.contract.errors import ServiceError
from tests.archive.test_captures import PAGE
from tests.support.archive import seal
from tests.support.calls import args, call, run
from tests.support.origin import HTTPSOrigin, Route
from tests.support.wacz_check import cdxj, fixity, jsonl, records, validate

VTT = (
    b"WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nHello there\n\n"
    b"00:00:03.000 --> 00:00:04.000\nSecond line\n"
)
ARTICLE = PAGE.replace(
    b"<title>",
    b'<meta name="citation_author" content="Lovelace, Ada">'
    b'<meta property="og:site_name" content="Harbour Gazette"><title>',
)


async def corpus(app: Application, token: str, ws: str, origin: HTTPSOrigin) -> tuple[dict, list]:
    origin.routes["/old"] = Route(b"", status=302, headers={"Location": "/article"})
    origin.routes["/article"] = Route(gzip.compress(ARTICLE), headers={"Content-Encoding": "gzip"})
    origin.routes["/copy"] = Route(gzip.compress(ARTICLE), headers={"Content-Encoding": "gzip"})
    origin.routes["/talk.vtt"] = Route(VTT, content_type="text/vtt; charset=utf-8")
    receipts = [
        await call(app, token, args(ws, origin.url("/old"))),
        await call(app, token, args(ws, origin.url("/copy"))),
        await call(app, token, args(ws, origin.url("/talk.vtt"), kind="published_captions")),
    ]
    assert [r["result"]["status"] for r in receipts] == ["ready"] * 3, receipts
    evidence = [r["evidence"] for r in receipts]
    return await seal(app, token, ws, [e["evidence_id"] for e in evidence]), evidence


async def test_export_writes_a_valid_wacz_whose_records_match_the_captures(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, tmp_path: Path
) -> None:
    ws, token = owner
    snapshot, evidence = await corpus(application, token, ws, origin)
    target = tmp_path / "corpus.wacz"
    with open(target, "wb") as out:  # noqa: ASYNC230 (a test's scratch file)
        summary = await application.research.export_corpus(token, ws, snapshot["id"], None, out)
    assert (summary.revisions, summary.captures, summary.revisits) == (3, 4, 1)
    checked = validate(target)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(target) as package:
        for name in ("archive/data.warc.gz", "indexes/index.cdx.gz"):
            assert package.getinfo(name).compress_type == zipfile.ZIP_STORED
        datapackage = fixity(package)
        assert datapackage["wacz_version"] == "1.1.1"
        read = records(package)
        pages = jsonl(package, "pages/pages.jsonl")
        index = cdxj(package)
        corpus_json = json.loads(package.read("corpus/corpus.json"))
        csl = json.loads(package.read("corpus/bibliography.json"))
        bib = package.read("corpus/bibliography.bib").decode()
    stored = [
        c
        for e in evidence
        for c in application.store.captures.of_revision(ws, e["evidence_id"], e["revision"])
    ]
    responses = [r for r in read if r["type"] in ("response", "revisit")]
    assert [r["uri"] for r in responses] == [c.url for c in stored]
    for record, capture in zip(responses, stored, strict=True):
        assert record["ip"] == "127.0.0.1" and record["status"] == str(capture.status)
        if record["type"] == "response":  # the body read back is the body as received
            assert record["sha256"] == capture.body_sha256
    assert [r["type"] for r in responses] == ["response", "response", "revisit", "response"]
    assert sum(r["type"] == "request" for r in read) == 4
    assert len(index) == 4 and all(" {" in line for line in index)
    assert pages[0]["format"] == "json-pages-1.0"
    assert [p["url"] for p in pages[1:]] == [
        origin.url("/article"),
        origin.url("/copy"),
        origin.url("/talk.vtt"),
    ]
    assert "harbour wall was rebuilt" in pages[1]["text"] and pages[3]["text"].startswith("Hello")
    assert corpus_json["sealed_at"].startswith(snapshot["sealed_at"][:19])
    assert [(i["evidence_id"], i["revision"]) for i in corpus_json["evidence"]] == [
        (e["evidence_id"], e["revision"]) for e in evidence
    ]
    revisions = application.store.evidence.revisions(
        ws, [(e["evidence_id"], e["revision"]) for e in evidence]
    )
    assert [i["content_digest"] for i in corpus_json["evidence"]] == [r.digest for r in revisions]
    assert [i["type"] for i in csl] == ["webpage", "webpage", "motion_picture"]
    assert csl[0]["title"] == "Harbour report" and csl[0]["URL"] == origin.url("/article")
    assert csl[0]["accessed"]["date-parts"][0][0] >= 2024
    assert bib.count("@online{") == 3 and "title = {Harbour report}" in bib
    # the page's declared citation fields reach the bibliography
    assert csl[0]["author"] == [{"family": "Lovelace", "given": "Ada"}]
    assert csl[0]["container-title"] == "Harbour Gazette"
    assert "author = {Lovelace, Ada}" in bib and "organization = {Harbour Gazette}" in bib
    assert "author" not in csl[2]


async def test_evidence_get_shows_the_declared_citation_with_its_sources(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    _, evidence = await corpus(application, token, ws, origin)
    got = []
    for ref in evidence:
        data, _ = await run(  # run() validates against the published evidence_get schema
            application,
            token,
            "sosoapi_research_evidence_get",
            {"workspace_id": ws, "evidence_id": ref["evidence_id"]},
        )
        got.append(data["evidence"]["citation"])
    assert got[0] == {
        "authors": {
            "value": ["Lovelace, Ada"],
            "source": "citation_meta",
            "key": "citation_author",
        },
        "site_name": {"value": "Harbour Gazette", "source": "opengraph", "key": "og:site_name"},
        "publisher": None,
        "published": None,
        "modified": None,
        "canonical_url": None,
    }
    assert got[2] is None  # a caption file declares no citation


async def test_a_revision_that_does_not_exist_is_not_found_and_writes_nothing(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, tmp_path: Path
) -> None:
    ws, token = owner
    snapshot, _ = await corpus(application, token, ws, origin)
    target = tmp_path / "x.wacz"
    with open(target, "wb") as out, pytest.raises(ServiceError) as caught:  # noqa: ASYNC230
        await application.research.export_corpus(token, ws, snapshot["id"], 9, out)
    assert caught.value.code == "not_found" and "revision 9" in caught.value.message
    assert target.stat().st_size == 0
