"""Migration 0016 repairs citations stored past the contract's bounds (issue 35, item 5).

A row written before it with a 5,000-character canonical URL, over-long names and a NUL
reads again afterwards: every field validates as `evidence_get` validates it, and a row
within the bounds is left byte for byte as it was.
"""

from __future__ import annotations

import json

from sqlalchemy import text

from sosoapi.contract.models import Citation
from sosoapi.store.store import Store
from tests.support.migrations import NOW, WS, at_revision, insert_workspace, stored_content

LONG_URL = "https://example.org/" + "a" * 5_000
OVER_LONG = {
    "canonical_url": {"value": LONG_URL, "source": "link_canonical", "key": "canonical"},
    "publisher": {"value": "P" * 600, "source": "citation_meta", "key": "citation_publisher"},
    "site_name": {"value": "Harbour\x00Gazette", "source": "opengraph", "key": "og:site_name"},
    "authors": {
        "value": [f"Author {n} " + "x" * 600 for n in range(60)],
        "source": "citation_meta",
        "key": "citation_author",
    },
}
WITHIN = {"published": {"value": "2024-05-01", "source": "json_ld", "key": "datePublished"}}


def _stored(database_url: str) -> None:
    """Two revisions at 0014, the schema before the repair: one over-long, one within."""
    db = at_revision(database_url, "0014")
    with db.write() as conn:
        insert_workspace(conn)
        for evidence_id, citation in (("e1", OVER_LONG), ("e2", WITHIN)):
            conn.execute(
                text(
                    "INSERT INTO evidence (id, workspace_id, identity, kind, source_url, "
                    "language, latest_revision, created_at, updated_at) VALUES (:e, :ws, :e, "
                    "'url_text', NULL, 'en', 1, :now, :now)"
                ),
                {"e": evidence_id, "ws": WS, "now": NOW},
            )
            conn.execute(
                text(
                    "INSERT INTO evidence_revisions (evidence_id, revision, digest, content, "
                    "created_at, citation) VALUES (:e, 1, :d, :c, :now, :citation)"
                ),
                {
                    "e": evidence_id,
                    "d": "a" * 64,
                    "c": stored_content("The harbour froze.", "en"),
                    "now": NOW,
                    "citation": json.dumps(citation, sort_keys=True, separators=(",", ":")),
                },
            )
    db.dispose()


def test_an_over_long_citation_stored_before_reads_again(database_url: str) -> None:
    _stored(database_url)
    store = Store(database_url)  # migrates to head
    try:
        over = store.evidence.revision(WS, "e1", None)
        within = store.evidence.revision(WS, "e2", None)
    finally:
        store.close()
    assert over is not None and over.citation is not None
    citation = Citation.model_validate_json(over.citation)  # what evidence_get does
    assert citation.canonical_url is None  # a cut URL would name another page
    assert citation.publisher is not None and citation.publisher.value == "P" * 500
    assert citation.site_name is not None and citation.site_name.value == "Harbour\ufffdGazette"
    assert citation.authors is not None and len(citation.authors.value) == 50
    assert all(len(name) == 500 for name in citation.authors.value)
    assert over.digest == "a" * 64  # the revision itself is untouched
    assert within is not None
    assert within.citation == json.dumps(WITHIN, sort_keys=True, separators=(",", ":"))
