"""Full-text search over evidence passages, in the store itself.

Each evidence revision is cut into passages (`extract.passages`) when it is written, in
the same transaction. SQLite keeps them in an FTS5 table (`porter unicode61
remove_diacritics 2`, ranked by bm25); PostgreSQL in a `tsvector` column with a GIN
index, each passage stemmed with the configuration of its evidence's declared language
where PostgreSQL has one and `simple` otherwise, plus its `simple` (unstemmed, no stop
words) form, so every word SQLite finds is found here too (ranked by `ts_rank`). Both are fed the
same NFKC text with marks removed, so the same words match on both.

SQL text is assembled only from this module's constant fragments (hence the S608
waivers); every value is a bound parameter.

A query is a list of phrases (a bare word is a one-word phrase); all must occur in one
passage. A revision's score is its best passage's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, text

from sosoapi.extract.passages import cue_spans, fold_diacritics, text_passages
from sosoapi.store.database import Database
from sosoapi.store.records import SearchHit, SnippetSpan

SNIPPETS = 3
_KEY = "p.evidence_id || ':' || CAST(p.revision AS VARCHAR(12))"
# PostgreSQL's text search configurations, by the primary subtag of a BCP 47 tag.
PG_CONFIGS = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "nb": "norwegian",
    "nn": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
CONFIGS = sorted({*PG_CONFIGS.values(), "simple"})
_FTS5_USING = "USING fts5(body, content='', tokenize='porter unicode61 remove_diacritics 2')"
# The one index every workspace shared until migration 0012; migrations 0003 and 0010 (and
# `index_revision` while it exists) still use it.
FTS5_DDL = f"CREATE VIRTUAL TABLE evidence_fts {_FTS5_USING}"


def fts_table(workspace_id: str) -> str:
    """The workspace's own FTS5 table (migration 0012), named by a hash of its id.

    bm25 weighs a term by how many documents hold it and a document by the average
    length, counted over the whole table; one table per workspace means a workspace's
    scores and order depend on its own passages only, as PostgreSQL's `ts_rank` does
    (which reads nothing but the passage). The name is hex, never the caller's text.
    """
    return "evidence_fts_" + hashlib.sha256(workspace_id.encode()).hexdigest()[:32]


def _fts_exists(conn: Connection, name: str) -> bool:
    found = conn.execute(_SQLITE_TABLE, {"name": name}).first()
    return found is not None


_SQLITE_TABLE = text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name")
_WORKSPACE_OF = text("SELECT workspace_id FROM evidence WHERE id = :id")
PG_DDL = (
    "ALTER TABLE evidence_passages ADD COLUMN tsv tsvector NOT NULL DEFAULT ''::tsvector",
    "CREATE INDEX ix_evidence_passages_tsv ON evidence_passages USING gin (tsv)",
)


def pg_config(language: str | None) -> str:
    primary = (language or "").split("-")[0].lower()
    return PG_CONFIGS.get(primary, "simple")


@dataclass(frozen=True, slots=True)
class PassageRow:
    part: str
    start: int
    end: int
    start_ms: int | None
    end_ms: int | None
    body: str


def passages_of(content: dict[str, Any]) -> list[PassageRow]:
    """A stored result's title, description and text passages (cues for captions)."""
    body = content.get("text") or ""
    rows = [
        PassageRow(part, 0, 0, None, None, content[part])
        for part in ("title", "description")
        if content.get(part)
    ]
    segments = [(s["text"], s["start_ms"], s["end_ms"]) for s in content.get("segments") or []]
    if segments:
        for cue in cue_spans(body, segments):
            rows.append(
                PassageRow(
                    "text", cue.start, cue.end, cue.start_ms, cue.end_ms, body[cue.start : cue.end]
                )
            )
    else:
        rows += [PassageRow("text", a, b, None, None, body[a:b]) for a, b in text_passages(body)]
    return rows


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
# SQLite write transactions here are BEGIN IMMEDIATE (store/database.py): no other writer
# runs between reading the next id and inserting, so the ids can be assigned up front and
# both tables take one executemany (RETURNING in parameter order would insert row by row).
_SQLITE_NEXT_ID = text("SELECT coalesce(max(id), 0) + 1 FROM evidence_passages")
_SQLITE_FTS_INSERT = "INSERT INTO {table} (rowid, body) VALUES (?, ?)"  # table: fts_table()


# PostgreSQL's text-search parser reads `<...>` as markup and `&...;` as entities: it
# drops `<a href=...>` whole and every word after `<script>` up to `</script>`. Our text is
# already plain, so these are the source's own characters; as word separators (which is
# what SQLite's unicode61 makes of them) both stores index the same words. NUL: refused.
# A soft hyphen (U+00AD) is an invisible hyphenation hint inside a word (German pages set
# `Baro&shy;lo`); both stores would split the word there, so it goes.
_SEARCH_FORM = str.maketrans({"<": " ", ">": " ", "&": " ", "\x00": " ", "\u00ad": None})


def searchable(text: str) -> str:
    """The form of a passage or a query phrase that both stores tokenize alike."""
    return fold_diacritics(text).translate(_SEARCH_FORM)


def index_revision(
    conn: Connection,
    evidence_id: str,
    revision: int,
    content: str,
    workspace_id: str | None = None,
) -> None:
    """Index one stored revision inside the caller's transaction.

    On SQLite the passages go to the workspace's own FTS5 table, made on first use; while
    the shared table of before migration 0012 exists (older migrations re-index with this
    function), to that one.
    """
    data = json.loads(content)
    config = pg_config((data.get("provenance") or {}).get("language"))
    passages = passages_of(data)
    if not passages:
        return
    # The driver's own executemany on both stores: per-row parameter handling in
    # SQLAlchemy cost more than the inserts (a page has dozens of passages).
    if conn.dialect.name != "sqlite":
        rows = [
            {
                "evidence_id": evidence_id,
                "revision": revision,
                "part": row.part,
                "pos_start": row.start,
                "pos_end": row.end,
                "start_ms": row.start_ms,
                "end_ms": row.end_ms,
                "config": config,
                "regconfig": config,  # one parameter, one type: the column's is text
                "body": searchable(row.body),
            }
            for row in passages
        ]
        conn.exec_driver_sql(_PG_INSERT, rows)  # the tsvector is computed in the insert
        return
    first = conn.execute(_SQLITE_NEXT_ID).scalar_one()
    numbered = list(enumerate(passages, start=first))
    conn.exec_driver_sql(
        _SQLITE_INSERT,
        [
            (n, evidence_id, revision, r.part, r.start, r.end, r.start_ms, r.end_ms, config)
            for n, r in numbered
        ],
    )
    if _fts_exists(conn, "evidence_fts"):
        table = "evidence_fts"
    else:
        if workspace_id is None:
            workspace_id = conn.execute(_WORKSPACE_OF, {"id": evidence_id}).scalar_one()
        table = fts_table(workspace_id)
        conn.exec_driver_sql(f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} {_FTS5_USING}")
    conn.exec_driver_sql(
        _SQLITE_FTS_INSERT.format(table=table), [(n, searchable(r.body)) for n, r in numbered]
    )


def _fts5_query(phrases: Sequence[str]) -> str:
    """Every phrase quoted (quotes doubled), so no query text is read as FTS5 syntax."""
    return " ".join('"' + searchable(p).replace('"', '""') + '"' for p in phrases)


class SearchRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def search(
        self,
        workspace_id: str,
        phrases: Sequence[str],
        *,
        kind: str | None,
        pins: Sequence[tuple[str, int]] | None,
        offset: int,
        limit: int,
    ) -> tuple[list[SearchHit], bool]:
        """A page of revisions matching every phrase, best first; True if more follow.

        `pins` None searches each evidence's latest revision, else exactly those
        (evidence_id, revision) pairs.
        """
        with self.db.read() as conn:
            match, params = self._match(conn, workspace_id, phrases)
            if match is None:
                return [], False
            scope, scope_params = self._scope(workspace_id, kind, pins)
            params.update(scope_params, offset=offset, limit=limit + 1)
            ranked = conn.execute(
                text(
                    f"SELECT p.evidence_id, p.revision, MAX(m.score) AS score FROM ({match}) m "  # noqa: S608
                    "JOIN evidence_passages p ON p.id = m.id "
                    f"JOIN evidence e ON e.id = p.evidence_id WHERE {scope} "
                    "GROUP BY p.evidence_id, p.revision "
                    "ORDER BY score DESC, p.evidence_id, p.revision LIMIT :limit OFFSET :offset"
                ).bindparams(*_expanding(scope_params)),
                params,
            ).all()
            more = len(ranked) > limit
            ranked = ranked[:limit]
            if not ranked:
                return [], more
            hits = self._hits(conn, match, params, [(r[0], r[1], float(r[2])) for r in ranked])
        return hits, more

    def _match(
        self, conn: Connection, workspace_id: str, phrases: Sequence[str]
    ) -> tuple[str | None, dict[str, Any]]:
        """A subquery of (id, score) of the passages matching all phrases, higher better."""
        if self.db.is_sqlite:
            table = fts_table(workspace_id)
            if not _fts_exists(conn, table):
                return None, {}  # nothing of this workspace was ever indexed
            return (
                f"SELECT rowid AS id, -rank AS score FROM {table} WHERE {table} MATCH :q",  # noqa: S608
                {"q": _fts5_query(phrases)},
            )
        tsquery = self._tsquery(conn, phrases)
        if not tsquery:
            return None, {}
        return (
            "SELECT id, ts_rank(tsv, CAST(:q AS tsquery)) AS score FROM evidence_passages "
            "WHERE tsv @@ CAST(:q AS tsquery)",
            {"q": tsquery},
        )

    @staticmethod
    def _tsquery(conn: Connection, phrases: Sequence[str]) -> str:
        """The phrases stemmed by every configuration, distinct forms OR-ed together.

        One constant tsquery, so the GIN index serves it; a passage matches when it has
        all phrases in the forms of any one language.
        """
        each = " && ".join(
            f"phraseto_tsquery(CAST(c AS regconfig), :p{i})" for i in range(len(phrases))
        )
        forms = conn.execute(
            text(
                f"SELECT DISTINCT CAST({each} AS text) FROM unnest(CAST(:configs AS text[])) c"  # noqa: S608
            ),
            {"configs": CONFIGS, **{f"p{i}": searchable(p) for i, p in enumerate(phrases)}},
        ).scalars()
        kept = sorted(f for f in forms if f)
        return " | ".join(f"( {f} )" for f in kept)

    @staticmethod
    def _scope(
        workspace_id: str, kind: str | None, pins: Sequence[tuple[str, int]] | None
    ) -> tuple[str, dict[str, Any]]:
        where = ["e.workspace_id = :ws"]
        params: dict[str, Any] = {"ws": workspace_id}
        if kind is not None:
            where.append("e.kind = :kind")
            params["kind"] = kind
        if pins is None:
            where.append("p.revision = e.latest_revision")
        else:
            where.append(f"p.evidence_id IN :pin_ids AND {_KEY} IN :pins")
            params["pins"] = [f"{e}:{r}" for e, r in pins] or [""]
            params["pin_ids"] = sorted({e for e, _ in pins}) or [""]
        return " AND ".join(where), params

    def _hits(
        self,
        conn: Connection,
        match: str,
        params: dict[str, Any],
        ranked: list[tuple[str, int, float]],
    ) -> list[SearchHit]:
        """The ranked revisions with their content and best text passages."""
        keys = [f"{e}:{r}" for e, r, _ in ranked]
        ids = sorted({e for e, _, _ in ranked})
        rows = conn.execute(
            text(
                f"SELECT p.evidence_id, p.revision, p.pos_start, p.pos_end, p.start_ms, p.end_ms, "  # noqa: S608
                f"m.score FROM ({match}) m JOIN evidence_passages p ON p.id = m.id "
                f"WHERE p.part = 'text' AND p.evidence_id IN :ids AND {_KEY} IN :keys "
                "ORDER BY m.score DESC, p.pos_start"
            ).bindparams(*_expanding({"keys": keys, "ids": ids})),
            {**params, "keys": keys, "ids": ids},
        ).all()
        spans: dict[tuple[str, int], list[SnippetSpan]] = {}
        for r in rows:
            found = spans.setdefault((r[0], r[1]), [])
            if len(found) < SNIPPETS:
                found.append(SnippetSpan(r[2], r[3], r[4], r[5]))
        contents = conn.execute(
            text(
                "SELECT e.id, r.revision, e.kind, e.source_url, r.content FROM evidence e "
                "JOIN evidence_revisions r ON r.evidence_id = e.id "
                "WHERE e.id IN :ids AND e.id || ':' || CAST(r.revision AS VARCHAR(12)) IN :keys"
            ).bindparams(*_expanding({"keys": keys, "ids": ids})),
            {"keys": keys, "ids": ids},
        ).all()
        by_key = {(c[0], c[1]): c for c in contents}
        return [
            SearchHit(
                e,
                r,
                by_key[(e, r)][2],
                by_key[(e, r)][3],
                round(max(score, 0.0), 6),
                by_key[(e, r)][4],
                tuple(sorted(spans.get((e, r), []), key=lambda s: s.start)),
            )
            for e, r, score in ranked
        ]


def _expanding(params: dict[str, Any]) -> list[Any]:
    """Expanding binds for the list-valued parameters (rendered as IN lists)."""
    return [bindparam(k, expanding=True) for k, v in params.items() if isinstance(v, list)]
