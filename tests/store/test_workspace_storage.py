"""A workspace's storage is counted as it is written and held to a limit (issue 36, item 8).

`workspaces.stored_bytes` grows with each stored revision (its texts and capture bodies)
and shrinks with a purge; migration 0017 counts what was stored before it; a read whose
evidence would pass the limit keeps nothing and its receipt says why; a new write in a
full workspace is refused before anything is claimed. Each against what the database
holds, measured here row by row, never against the counter's own arithmetic.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select, text

from sosoapi.application import Application
from sosoapi.clock import utcnow
from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.contract.guidance import advice
from sosoapi.store.bodies import pack_body
from sosoapi.store.maintenance import purge_receipts
from sosoapi.store.store import Store
from sosoapi.store.tables import (
    capture_blobs,
    captures,
    evidence,
    evidence_revisions,
    mutations,
    workspaces,
)
from tests.research.test_forged_cursors import BASE, surfaces
from tests.support.calls import RETRIEVE
from tests.support.lifespan import held_open
from tests.support.migrations import at_revision, insert_workspace, stored_content
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import make_settings, owner_token


def big_page() -> bytes:
    """About 1.4 MB of markup that compresses poorly: its revision stores over 1 MiB."""
    words = " ".join(os.urandom(8).hex() for _ in range(80_000))
    return f"<html><body><h1>Big</h1><p>{words}</p></body></html>".encode()


@asynccontextmanager
async def running(
    database_url: str, home: Path, origin: HTTPSOrigin, limit: int
) -> AsyncIterator[Application]:
    settings = make_settings(database_url, home, origin.egress_env())
    app = Application(replace(settings, workspace_storage_max_bytes=limit))
    try:
        async with held_open(app.running()):
            yield app
    finally:
        app.store.close()


async def retrieve(app: Application, token: str, ws: str, url: str, key: str | None = None):
    arguments = {"workspace_id": ws, "url": url, "kind": "url_text"}
    return await app.research.call(
        RETRIEVE, token, {**arguments, "mutation_id": key or str(uuid.uuid4())}
    )


def counted(app: Application, ws: str) -> int:
    with app.store.db.read() as conn:
        return conn.execute(select(workspaces.c.stored_bytes).where(workspaces.c.id == ws)).one()[0]


def measured(app: Application, ws: str) -> int:
    """What the workspace's rows hold: its revisions' texts (UTF-8) and, for each of its
    captures, its body as stored."""
    mine = select(evidence.c.id).where(evidence.c.workspace_id == ws)
    with app.store.db.read() as conn:
        texts = conn.execute(
            select(
                evidence_revisions.c.content,
                evidence_revisions.c.whole,
                evidence_revisions.c.citation,
            ).where(evidence_revisions.c.evidence_id.in_(mine))
        ).all()
        bodies = conn.execute(
            select(capture_blobs.c.data)
            .join(captures, captures.c.body_sha256 == capture_blobs.c.sha256)
            .where(captures.c.evidence_id.in_(mine))
        ).scalars()
        body_bytes = sum(len(bytes(body)) for body in bodies)
    return body_bytes + sum(len(t.encode()) for row in texts for t in row if t is not None)


def rows(app: Application) -> tuple[int, int, int, int]:
    with app.store.db.read() as conn:
        return tuple(  # type: ignore[return-value]
            conn.execute(select(func.count()).select_from(table)).scalar_one()
            for table in (evidence, evidence_revisions, captures, capture_blobs)
        )


async def test_usage_grows_with_each_stored_read_and_shrinks_with_purge(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, pages: dict[str, bytes]
) -> None:
    async with running(database_url, tmp_path, origin, limit=0) as app:
        ws, token = owner_token(app)
        assert counted(app, ws) == 0
        for path in sorted(pages)[:2]:
            outcome = await retrieve(app, token, ws, origin.url(path))
            assert outcome.output.wire()["retrieval"]["result"]["status"] == "ready"
        stored = counted(app, ws)
        assert stored == measured(app, ws) > 0
        again = await retrieve(app, token, ws, origin.url(sorted(pages)[0]))  # same digest
        assert again.output.wire()["retrieval"]["evidence"]["revision"] == 1
        assert counted(app, ws) == stored  # nothing new stored, nothing counted

        later = utcnow() + timedelta(days=3)
        assert purge_receipts(app.store.db, later, later).captures >= 2
        assert counted(app, ws) == measured(app, ws) < stored  # the texts stay, counted


async def test_a_read_past_the_limit_keeps_nothing_and_its_receipt_says_why(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, pages: dict[str, bytes]
) -> None:
    origin.routes["/big"] = Route(big_page())
    async with running(database_url, tmp_path, origin, limit=1024 * 1024) as app:
        ws, token = owner_token(app)
        first = await retrieve(app, token, ws, origin.url(sorted(pages)[0]))
        assert first.output.wire()["retrieval"]["result"]["status"] == "ready"
        stored, before = counted(app, ws), rows(app)

        outcome = await retrieve(app, token, ws, origin.url("/big"))
        receipt = outcome.output.wire()["retrieval"]
        assert receipt["state"] == "completed" and receipt["evidence"] is None
        assert receipt["result"]["status"] == "unavailable"
        assert receipt["result"]["reason"] == "unavailable"
        assert outcome.cause == "storage_full"
        # the content line's advice, worded from the cause the receipt kept
        said = advice(receipt["result"]["reason"], receipt["state"], None, outcome.cause)
        assert "storage limit" in said and "SOSOAPI_WORKSPACE_STORAGE_MAX_MB" in said
        # nothing half-written: no evidence, revision, capture or body of it, nothing counted
        assert rows(app) == before
        assert counted(app, ws) == stored == measured(app, ws)
        # the workspace still has room: a small read is stored
        small = await retrieve(app, token, ws, origin.url(sorted(pages)[1]))
        assert small.output.wire()["retrieval"]["evidence"] is not None


async def test_a_full_workspace_refuses_a_new_read_before_claiming_it(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, pages: dict[str, bytes]
) -> None:
    async with running(database_url, tmp_path, origin, limit=0) as app:
        ws, token = owner_token(app)
        key = str(uuid.uuid4())
        await retrieve(app, token, ws, origin.url(sorted(pages)[0]), key)
        stored = counted(app, ws)
    # the operator lowers the limit to what the workspace stores: no room is left
    async with running(database_url, tmp_path, origin, limit=stored) as app:
        with pytest.raises(ServiceError) as refused:
            await retrieve(app, token, ws, origin.url(sorted(pages)[1]))
        error = refused.value
        assert error.code == ErrorCode.BUSY and error.field == "workspace_id"
        for named in (ws, "SOSOAPI_WORKSPACE_STORAGE_MAX_MB", "sosoapi purge", "same mutation_id"):
            assert named in error.message
        with app.store.db.read() as conn:  # nothing claimed for the refused call
            assert conn.execute(select(func.count()).select_from(mutations)).scalar_one() == 1
        replay = await retrieve(app, token, ws, origin.url(sorted(pages)[0]), key)
        assert replay.output.wire()["retrieval"]["state"] == "completed"  # a replay answers

        api, _ = surfaces(app)  # over HTTP: a 429 problem, with no Retry-After to wait for
        transport = httpx.ASGITransport(app=api)
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(transport=transport, base_url=BASE, headers=headers) as http:
            answer = await http.post(
                "/research-api/evidence/retrieve",
                json={"workspace_id": ws, "url": origin.url(sorted(pages)[1]),
                      "kind": "url_text", "mutation_id": str(uuid.uuid4())},
            )  # fmt: skip
        assert answer.status_code == 429 and "retry-after" not in answer.headers
        problem = answer.json()
        assert problem["type"].endswith("/busy") and problem["field"] == "workspace_id"
        assert f"{stored / 2**20:,.1f} MiB" in problem["detail"] and ws in problem["detail"]


NOW = datetime(2026, 1, 2, tzinfo=UTC)
FULL, EMPTY = "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"


def test_the_migration_counts_what_each_workspace_stored_before_it(database_url: str) -> None:
    content = stored_content("Fjorden frøs til. Ærlig talt: 雪が降った。", "nb")
    whole, citation = '{"text":"Ø' + "å" * 3000 + '"}', '{"title":"Tromsø"}'
    body = "<p>Fjorden frøs</p>".encode() * 50
    packed = pack_body(body)
    db = at_revision(database_url, "0016")
    with db.write() as conn:
        for ws in (FULL, EMPTY):
            insert_workspace(conn, ws, NOW)
        conn.execute(
            text(
                "INSERT INTO evidence (id, workspace_id, identity, kind, source_url, language, "
                "latest_revision, created_at, updated_at) VALUES ('e1', :ws, 'i1', 'url_text', "
                "NULL, 'nb', 2, :now, :now)"
            ),
            {"ws": FULL, "now": NOW},
        )
        for number, (whole_text, cited) in enumerate(((None, None), (whole, citation)), 1):
            conn.execute(
                text(
                    "INSERT INTO evidence_revisions (evidence_id, revision, digest, content, "
                    "created_at, whole, citation) VALUES ('e1', :n, :d, :c, :now, :w, :cite)"
                ),
                {"n": number, "d": "a" * 64, "c": content, "now": NOW, "w": whole_text,
                 "cite": cited},
            )  # fmt: skip
        conn.execute(
            capture_blobs.insert().values(
                sha256="b" * 64, size=len(body), codec="zstd", data=packed
            )
        )
        for number in (1, 2):  # two captures of one body: each counted (store/usage.py)
            conn.execute(
                captures.insert().values(
                    evidence_id="e1", revision=number, seq=0, role="response",
                    url="https://example.org/", retrieved_at=NOW, ip=None, status=200,
                    meta="{}", body_sha256="b" * 64,
                )
            )  # fmt: skip
    db.dispose()
    store = Store(database_url)  # migrates to head
    try:
        with store.db.read() as conn:
            counts = dict(conn.execute(select(workspaces.c.id, workspaces.c.stored_bytes)).all())
    finally:
        store.close()
    texts = 2 * len(content.encode()) + len(whole.encode()) + len(citation.encode())
    assert counts == {FULL: texts + 2 * len(packed), EMPTY: 0}
