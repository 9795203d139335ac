"""Migration 0018: on PostgreSQL a retrieval's texts are stored lz4-compressed and capture
bodies (zstd already) uncompressed; what was stored before reads back as it was, on both
stores (SQLite compresses nothing and is left alone)."""

from __future__ import annotations

from sqlalchemy import Connection, text

from sosoapi.store.store import Store
from tests.support.migrations import NOW, WS, at_revision, insert_workspace, stored_content

# Past the 2 kB at which PostgreSQL compresses a value, and compressible.
LONG = " ".join(f"The harbour froze on day {n} and the ferries stayed in port." for n in range(200))
ZEROS = bytes(20_000)  # compressible: EXTENDED storage would compress it, EXTERNAL does not


def _evidence(conn: Connection, evidence_id: str) -> str:
    """A revision of `evidence_id` with a long text and a long whole text; its content."""
    content = stored_content(LONG, "en")
    conn.execute(
        text(
            "INSERT INTO evidence (id, workspace_id, identity, kind, source_url, language, "
            "latest_revision, created_at, updated_at) VALUES (:e, :ws, :e, 'url_text', NULL, "
            "'en', 1, :now, :now)"
        ),
        {"e": evidence_id, "ws": WS, "now": NOW},
    )
    conn.execute(
        text(
            "INSERT INTO evidence_revisions (evidence_id, revision, digest, content, "
            "created_at, whole) VALUES (:e, 1, :d, :c, :now, :w)"
        ),
        {"e": evidence_id, "d": "a" * 64, "c": content, "now": NOW, "w": LONG + evidence_id},
    )
    return content


def _blob(conn: Connection, sha256: str) -> None:
    conn.execute(
        text("INSERT INTO capture_blobs (sha256, size, codec, data) VALUES (:s, 0, 'zstd', :d)"),
        {"s": sha256, "d": ZEROS},
    )


def _stored(conn: Connection, sql: str, key: str) -> str:
    return str(conn.execute(text(sql), {"k": key}).scalar_one())


def test_texts_stored_before_and_after_read_back_and_new_ones_are_lz4(database_url: str) -> None:
    db = at_revision(database_url, "0017")
    with db.write() as conn:
        insert_workspace(conn)
        before = _evidence(conn, "e1")
        _blob(conn, "b" * 64)
    db.dispose()
    store = Store(database_url)  # migrates to head
    try:
        with store.db.write() as conn:
            after = _evidence(conn, "e2")
            _blob(conn, "c" * 64)
        old = store.evidence.revision(WS, "e1", None)
        new = store.evidence.revision(WS, "e2", None)
        assert old is not None and old.content == before
        assert new is not None and new.content == after
        if store.db.is_sqlite:
            return
        with store.db.read() as conn:
            compressed = (
                "SELECT pg_column_compression({}) FROM evidence_revisions WHERE evidence_id = :k"
            )
            size = "SELECT pg_column_size(data) FROM capture_blobs WHERE sha256 = :k"
            assert _stored(conn, compressed.format("content"), "e1") == "pglz"  # left as it was
            assert _stored(conn, compressed.format("content"), "e2") == "lz4"
            assert _stored(conn, compressed.format("whole"), "e2") == "lz4"
            assert int(_stored(conn, size, "b" * 64)) < 1_000  # pglz before
            assert int(_stored(conn, size, "c" * 64)) >= len(ZEROS)  # not compressed again
    finally:
        store.close()
