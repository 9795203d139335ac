"""The search index as migrations 0003, 0009 and 0010 wrote it: a frozen copy.

A migration must do tomorrow what it did the day it was written, whatever the running
code has become since, so the migrations that (re)build the index do not call the store's
or the extractor's code: they call this module, which holds what they need as it was at
revision 0010 (passages cut from the stored JSON, the search form of their text, the
PostgreSQL configuration per language, the DDL and the inserts). Never edit it to follow
the product; a later change of the index form adds a migration with its own copy.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, text

FTS5_DDL = (
    "CREATE VIRTUAL TABLE evidence_fts USING fts5(body, content='', "
    "tokenize='porter unicode61 remove_diacritics 2')"
)
PG_DDL = (
    "ALTER TABLE evidence_passages ADD COLUMN tsv tsvector NOT NULL DEFAULT ''::tsvector",
    "CREATE INDEX ix_evidence_passages_tsv ON evidence_passages USING gin (tsv)",
)
_PG_CONFIGS = {
    **dict.fromkeys(("no", "nb", "nn"), "norwegian"),
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "da": "danish",
    "nl": "dutch", "en": "english", "fi": "finnish", "fr": "french", "de": "german",
    "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sr": "serbian", "es": "spanish", "sv": "swedish",
    "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip
_PASSAGE_MAX = 400
_LINE = re.compile(r"[^\n]+")
_SEARCH_FORM = str.maketrans({"<": " ", ">": " ", "&": " ", "\x00": " ", "\u00ad": None})
_PG_INSERT = (
    "INSERT INTO evidence_passages (evidence_id, revision, part, pos_start, pos_end, "
    "start_ms, end_ms, config, tsv) VALUES (%(evidence_id)s, %(revision)s, %(part)s, "
    "%(pos_start)s, %(pos_end)s, %(start_ms)s, %(end_ms)s, %(config)s, "
    "to_tsvector(CAST(%(regconfig)s AS regconfig), %(body)s) "
    "|| to_tsvector('simple', %(body)s))"
)
_SQLITE_INSERT = (
    "INSERT INTO evidence_passages (id, evidence_id, revision, part, pos_start, pos_end, "
    "start_ms, end_ms, config) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_SQLITE_FTS_INSERT = "INSERT INTO evidence_fts (rowid, body) VALUES (?, ?)"


def _folded(value: str) -> str:
    """NFKC with combining marks removed, then the markup characters as separators."""
    decomposed = unicodedata.normalize("NFKD", value)
    unmarked = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", unmarked).translate(_SEARCH_FORM)


def _windows(body: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while end - start > _PASSAGE_MAX:
        cut = body.rfind(" ", start + _PASSAGE_MAX // 2, start + _PASSAGE_MAX)
        cut = cut if cut > start else start + _PASSAGE_MAX
        yield start, cut
        start = cut
        while start < end and body[start].isspace():
            start += 1
    if end > start:
        yield start, end


def _line_spans(body: str) -> Iterator[tuple[int, int]]:
    for line in _LINE.finditer(body):
        start, end = line.start(), line.end()
        while start < end and body[start].isspace():
            start += 1
        while end > start and body[end - 1].isspace():
            end -= 1
        yield from _windows(body, start, end)


def _cue_spans(body: str, segments: list[dict[str, Any]]) -> Iterator[tuple[int, int, Any, Any]]:
    at = 0
    for segment in segments:
        found = body.find(segment["text"], at)
        if found < 0:
            return
        at = found + len(segment["text"])
        yield found, at, segment["start_ms"], segment["end_ms"]


def _passages(data: dict[str, Any]) -> list[tuple[str, int, int, Any, Any, str]]:
    body = data.get("text") or ""
    rows = [(p, 0, 0, None, None, data[p]) for p in ("title", "description") if data.get(p)]
    if data.get("segments"):
        spans = list(_cue_spans(body, data["segments"]))
    else:
        spans = [(a, b, None, None) for a, b in _line_spans(body)]
    rows += [("text", a, b, s, e, body[a:b]) for a, b, s, e in spans]
    return rows


def index_revision(conn: Connection, evidence_id: str, revision: int, content: str) -> None:
    """Index one stored revision (its JSON as kept) inside the migration's transaction."""
    data = json.loads(content)
    language = (data.get("provenance") or {}).get("language") or ""
    config = _PG_CONFIGS.get(language.split("-")[0].lower(), "simple")
    rows = _passages(data)
    if not rows:
        return
    if conn.dialect.name != "sqlite":
        conn.exec_driver_sql(
            _PG_INSERT,
            [
                {
                    "evidence_id": evidence_id,
                    "revision": revision,
                    "part": part,
                    "pos_start": a,
                    "pos_end": b,
                    "start_ms": s,
                    "end_ms": e,
                    "config": config,
                    "regconfig": config,  # one parameter, one type: the column's is text
                    "body": _folded(body),
                }
                for part, a, b, s, e, body in rows
            ],
        )
        return
    first = conn.execute(text("SELECT coalesce(max(id), 0) + 1 FROM evidence_passages"))
    numbered = list(enumerate(rows, start=first.scalar_one()))
    conn.exec_driver_sql(
        _SQLITE_INSERT,
        [(n, evidence_id, revision, p, a, b, s, e, config) for n, (p, a, b, s, e, _) in numbered],
    )
    conn.exec_driver_sql(_SQLITE_FTS_INSERT, [(n, _folded(r[5])) for n, r in numbered])
