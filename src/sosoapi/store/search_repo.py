"""Full-text search over evidence passages, in the store itself: SQL only.

A revision's passages arrive cut and in search form (`research/evidence/passages.py`,
before the write transaction begins) and are inserted with the revision. SQLite keeps
them in an FTS5 table per workspace (`porter unicode61 remove_diacritics 2`, ranked by
bm25 over that workspace's passages only);
PostgreSQL in a `tsvector` column with a GIN index, each passage stemmed with the
configuration of its evidence's declared language where PostgreSQL has one and `simple`
otherwise, plus its `simple` (unstemmed, no stop words) form, so every word SQLite finds
is found here too (ranked by `ts_rank`). Both are fed the same NFKC text with marks
removed, so the same words match on both; query phrases arrive in that form too.

SQL text is assembled only from this module's constant fragments (hence the S608
waivers); every value is a bound parameter.

A query is a list of phrases (a bare word is a one-word phrase); each must occur in some
passage of the revision, not all in one (a long text's first and last paragraphs are
different passages). A revision's score is the sum over the phrases of its best passage
for each, and its snippets show the best passage of each phrase first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, text

from sosoapi.store.database import Database
from sosoapi.store.records import PassageRecord, SearchHit, SnippetSpan

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


def pg_config(language: str | None) -> str:
    primary = (language or "").split("-")[0].lower()
    return PG_CONFIGS.get(primary, "simple")


# A revision's passages in one statement, their columns as arrays zipped by `unnest` in
# order (so the ids follow the passages' order, as row-by-row inserts gave them): one
# execution in the backend, not one per passage, and one set of parameters for the driver
# to adapt. The tsvector is computed in the insert.
_PG_INSERT = (
    "INSERT INTO evidence_passages (evidence_id, revision, part, pos_start, pos_end, "
    "start_ms, end_ms, config, tsv) SELECT %(evidence_id)s, %(revision)s, p.part, "
    "p.pos_start, p.pos_end, p.start_ms, p.end_ms, %(config)s, "
    "to_tsvector(CAST(%(regconfig)s AS regconfig), p.body) || to_tsvector('simple', p.body) "
    "FROM unnest(CAST(%(parts)s AS varchar[]), CAST(%(starts)s AS integer[]), "
    "CAST(%(ends)s AS integer[]), CAST(%(starts_ms)s AS bigint[]), "
    "CAST(%(ends_ms)s AS bigint[]), CAST(%(bodies)s AS text[])) "
    "WITH ORDINALITY AS p(part, pos_start, pos_end, start_ms, end_ms, body, n) ORDER BY p.n"
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
_FTS5_USING = "USING fts5(body, content='', tokenize='porter unicode61 remove_diacritics 2')"
_SQLITE_TABLE = text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name")


def fts_table(workspace_id: str) -> str:
    """The workspace's own FTS5 table (migration 0012), named by a hash of its id.

    bm25 weighs a term by how many documents hold it and a document by the average
    length, counted over the whole table; one table per workspace means a workspace's
    scores and order depend on its own passages only, as PostgreSQL's `ts_rank` does
    (which reads nothing but the passage). The name is hex, never the caller's text.
    """
    return "evidence_fts_" + hashlib.sha256(workspace_id.encode()).hexdigest()[:32]


def index_revision(
    conn: Connection,
    evidence_id: str,
    revision: int,
    language: str | None,
    passages: Sequence[PassageRecord],
    workspace_id: str,
) -> None:
    """Index one revision's passages (cut and in search form already) in the caller's
    transaction; on SQLite into the workspace's own FTS5 table, made on first use."""
    if not passages:
        return
    config = pg_config(language)
    # The driver's own statements on both stores: per-row parameter handling in
    # SQLAlchemy cost more than the inserts (a page has dozens of passages).
    if conn.dialect.name != "sqlite":
        conn.exec_driver_sql(
            _PG_INSERT,
            {
                "evidence_id": evidence_id,
                "revision": revision,
                "config": config,
                "regconfig": config,  # one parameter, one type: the column's is text
                "parts": [row.part for row in passages],
                "starts": [row.start for row in passages],
                "ends": [row.end for row in passages],
                "starts_ms": [row.start_ms for row in passages],
                "ends_ms": [row.end_ms for row in passages],
                "bodies": [row.body for row in passages],
            },
        )
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
    table = fts_table(workspace_id)
    conn.exec_driver_sql(f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} {_FTS5_USING}")
    conn.exec_driver_sql(_SQLITE_FTS_INSERT.format(table=table), [(n, r.body) for n, r in numbered])


def _fts5_query(phrases: Sequence[str]) -> str:
    """Every phrase quoted (quotes doubled), so no query text is read as FTS5 syntax."""
    return " ".join('"' + p.replace('"', '""') + '"' for p in phrases)


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
            match, params = self._match_each(conn, workspace_id, phrases)
            if match is None:
                return [], False
            scope, scope_params = self._scope(workspace_id, kind, pins)
            params.update(scope_params, offset=offset, limit=limit + 1, phrases=len(phrases))
            ranked = conn.execute(
                text(
                    "SELECT evidence_id, revision, SUM(best) AS score FROM ("  # noqa: S608
                    f"SELECT p.evidence_id, p.revision, m.k, MAX(m.score) AS best FROM ({match}) m "
                    "JOIN evidence_passages p ON p.id = m.id "
                    f"JOIN evidence e ON e.id = p.evidence_id WHERE {scope} "
                    "GROUP BY p.evidence_id, p.revision, m.k) g "
                    "GROUP BY evidence_id, revision HAVING COUNT(*) = :phrases "
                    "ORDER BY score DESC, evidence_id, revision LIMIT :limit OFFSET :offset"
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
            if conn.execute(_SQLITE_TABLE, {"name": table}).first() is None:
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

    def _match_each(
        self, conn: Connection, workspace_id: str, phrases: Sequence[str]
    ) -> tuple[str | None, dict[str, Any]]:
        """A subquery of (id, score, k): the passages matching phrase number k, for each."""
        parts: list[str] = []
        params: dict[str, Any] = {}
        for k, phrase in enumerate(phrases):
            match, one = self._match(conn, workspace_id, [phrase])
            if match is None:
                return None, {}
            parts.append(
                f"SELECT id, score, {k} AS k FROM ({match.replace(':q', f':q{k}')}) m{k}"  # noqa: S608
            )
            params[f"q{k}"] = one["q"]
        return " UNION ALL ".join(parts), params

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
            {"configs": CONFIGS, **{f"p{i}": p for i, p in enumerate(phrases)}},
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
                f"m.score, m.k FROM ({match}) m JOIN evidence_passages p ON p.id = m.id "
                f"WHERE p.part = 'text' AND p.evidence_id IN :ids AND {_KEY} IN :keys "
                "ORDER BY m.score DESC, p.pos_start"
            ).bindparams(*_expanding({"keys": keys, "ids": ids})),
            {**params, "keys": keys, "ids": ids},
        ).all()
        # The best passage of each phrase first (where each word is), then the best others.
        firsts = {(r[0], r[1], r[7]): r for r in reversed(rows)}
        ordered = [*firsts.values()][::-1]
        ordered.sort(key=lambda r: -r[6])
        ordered += [r for r in rows if firsts[(r[0], r[1], r[7])] is not r]
        spans: dict[tuple[str, int], list[SnippetSpan]] = {}
        for r in ordered:
            found = spans.setdefault((r[0], r[1]), [])
            span = SnippetSpan(r[2], r[3], r[4], r[5])
            if len(found) < SNIPPETS and span not in found:
                found.append(span)
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
