"""Captures: the exchange each revision was read from, kept as it arrived (both stores)."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from sosoapi.application import Application
from sosoapi.egress.body import BoundedBody
from sosoapi.store.maintenance import purge_receipts
from sosoapi.store.tables import capture_blobs, captures
from tests.support.archive import seal
from tests.support.calls import args, call, run
from tests.support.origin import HTTPSOrigin, Route

PAGE = (
    b"<!doctype html><html><head><title>Harbour report</title></head><body><main>"
    + b"<p>The harbour wall was rebuilt in 1998 after the storm of the previous winter.</p>" * 8
    + b"</main></body></html>"
)


def rows(app: Application, table: sa.Table) -> list[sa.Row]:
    with app.store.db.read() as conn:
        return list(conn.execute(sa.select(table)))


async def test_a_redirected_gzip_page_keeps_every_hop_and_the_raw_body(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    packed = gzip.compress(PAGE)
    origin.routes["/old"] = Route(b"", status=301, headers={"Location": "/new"})
    origin.routes["/new"] = Route(packed, headers={"Content-Encoding": "gzip", "X-Kept": "yes"})
    receipt = await call(application, token, args(ws, origin.url("/old")))
    assert receipt["result"]["status"] == "ready", receipt["result"]
    ev = receipt["evidence"]
    kept = application.store.captures.of_revision(ws, ev["evidence_id"], ev["revision"])
    assert [c.role for c in kept] == ["redirect", "response"]
    redirect, response = kept
    assert redirect.status == 301 and redirect.url == origin.url("/old")
    assert response.status == 200 and response.url == origin.url("/new")
    assert response.body == packed  # as received, before decoding
    assert response.ip == "127.0.0.1" and redirect.ip == "127.0.0.1"
    meta = json.loads(response.meta)
    sent = dict(meta["request"]["headers"])
    assert sent["Accept-Encoding"] == "identity" and "User-Agent" in sent
    assert not {"Cookie", "Authorization"} & set(sent)
    assert "no cookies" in meta["credentials"]
    received = dict(meta["response"]["headers"])
    assert received["Content-Encoding"] == "gzip" and received["X-Kept"] == "yes"
    assert abs(response.retrieved_at - datetime.now(UTC)) < timedelta(minutes=1)
    # a revision that names a workspace it is not in shows nothing
    assert (
        application.store.captures.of_revision(ev["evidence_id"], ev["evidence_id"], ev["revision"])
        == []
    )


async def test_an_unchanged_body_is_stored_once(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/a"] = Route(PAGE)
    origin.routes["/b"] = Route(PAGE)
    first = await call(application, token, args(ws, origin.url("/a")))
    second = await call(application, token, args(ws, origin.url("/b")))
    again = await call(application, token, args(ws, origin.url("/a")))  # same digest
    assert first["evidence"]["evidence_id"] != second["evidence"]["evidence_id"]
    assert again["evidence"] == first["evidence"]
    assert len(rows(application, captures)) == 2  # no capture for the unchanged revision
    blobs = rows(application, capture_blobs)
    assert len(blobs) == 1 and blobs[0].size == len(PAGE) and len(blobs[0].data) < len(PAGE)


@pytest.mark.parametrize("receipt_overrides", [{"keep_captures": False}])
async def test_keep_captures_off_keeps_none(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/a"] = Route(PAGE)
    receipt = await call(application, token, args(ws, origin.url("/a")))
    assert receipt["result"]["status"] == "ready"
    assert rows(application, captures) == [] and rows(application, capture_blobs) == []


async def test_an_upload_keeps_its_file_bytes(
    application: Application, owner: tuple[str, str], tmp_path: Path
) -> None:
    ws, token = owner
    path = tmp_path / "notes.txt"
    path.write_bytes(b"Field notes, day one.\nThe tide came in at six.\n")
    data, _ = await run(
        application,
        token,
        "sosoapi_research_evidence_upload",
        {
            "workspace_id": ws,
            "mutation_id": "6f1c1b4e-0000-4000-8000-000000000001",
            "path": str(path),
            "kind": "url_text",
        },
        transport="stdio",
    )
    ev = data["retrieval"]["evidence"]
    kept = application.store.captures.of_revision(ws, ev["evidence_id"], ev["revision"])
    assert [(c.role, c.body, c.ip) for c in kept] == [("upload", path.read_bytes(), None)]


async def test_purge_removes_only_captures_no_sealed_corpus_pins(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/pinned"] = Route(PAGE)
    origin.routes["/loose"] = Route(PAGE.replace(b"1998", b"2001"))
    pinned = (await call(application, token, args(ws, origin.url("/pinned"))))["evidence"]
    loose = (await call(application, token, args(ws, origin.url("/loose"))))["evidence"]
    await seal(application, token, ws, [pinned["evidence_id"]])
    now = datetime.now(UTC)
    counts = purge_receipts(application.store.db, now - timedelta(hours=1), now)
    assert (counts.captures, counts.capture_blobs) == (0, 0)  # too recent
    counts = purge_receipts(application.store.db, now + timedelta(seconds=1), now)
    assert (counts.captures, counts.capture_blobs) == (1, 1)
    left = rows(application, captures)
    assert [(c.evidence_id, c.revision) for c in left] == [
        (pinned["evidence_id"], pinned["revision"])
    ]
    assert application.store.captures.of_revision(ws, loose["evidence_id"], loose["revision"]) == []
    assert len(rows(application, capture_blobs)) == 1


def test_the_raw_body_is_bounded_like_the_decoded_one() -> None:
    data = gzip.compress(bytes(range(256)) * 40)
    body = BoundedBody("gzip", 100)
    assert body.feed(data) is True
    assert body.truncated and body.raw_body == data[:100]
    plain = BoundedBody(None, 10)
    plain.feed(b"0123456789abc")
    assert plain.raw_body == plain.body == b"0123456789"


def test_an_uncoded_body_and_its_raw_form_are_one_object() -> None:
    """A page sent with no content coding is held once: its read and its capture share the
    bytes (the parse trip then sends them once); more fed makes a new one."""
    plain = BoundedBody(None, 1 << 20)
    plain.feed(b"<p>first</p>")
    first = plain.body
    assert plain.raw_body is first and plain.body is first
    plain.feed(b"<p>second</p>")
    assert plain.body == b"<p>first</p><p>second</p>" and plain.raw_body is plain.body
    coded = BoundedBody("gzip", 1 << 20)
    coded.feed(gzip.compress(b"<p>page</p>"))
    assert coded.body == b"<p>page</p>" and coded.raw_body != coded.body
