"""Rows as an earlier schema revision held them, for the tests of the migrations after it:
a database migrated to one revision only, its workspace, and a stored result's JSON."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from importlib import resources

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, text

from sosoapi.contract.models import Provenance, RetrieveResult, Segment
from sosoapi.store.database import Database

WS = "11111111-1111-4111-8111-111111111111"
NOW = datetime(2026, 1, 2, tzinfo=UTC)


def stored_content(text_: str, language: str, segments: list[Segment] | None = None) -> str:
    """A ready result's JSON as a revision's `content` column holds it: captions when
    `segments` are given, else a page's text."""
    result = RetrieveResult(
        kind="published_captions" if segments else "url_text",
        status="ready",
        text=text_,
        title="Before the index",
        description=None,
        segments=segments or [],
        provenance=Provenance(
            source_url="https://example.org/a",
            retrieved_at=NOW,
            mime_type="text/vtt" if segments else "text/html",
            content_kind="published_caption_file" if segments else "document_text",
            caption_format="webvtt" if segments else None,
            language=language,
            language_source="publisher_declared",
        ),
        reason=None,
        warnings=[],
        retry_after_seconds=None,
    )
    return json.dumps(result.wire())


def at_revision(url: str, target: str) -> Database:
    """The database at `url` migrated to `target` only, for rows written before a later one."""
    db = Database(url)
    config = Config()
    config.set_main_option("script_location", str(resources.files("sosoapi.store") / "migrations"))
    with db.write() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, target)
    return db


def insert_workspace(conn: Connection, workspace_id: str = WS, now: datetime = NOW) -> None:
    """A workspace row as every revision since the first holds it."""
    conn.execute(
        text(
            "INSERT INTO workspaces (id, name, research_enabled, is_local, created_at) "
            "VALUES (:id, 'w', true, false, :now)"
        ),
        {"id": workspace_id, "now": now},
    )
