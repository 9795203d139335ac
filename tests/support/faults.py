"""What a store fault must look like to a caller, and what it must leave in the database."""

from __future__ import annotations

from typing import Any

import httpx
import sqlalchemy as sa
from jsonschema import Draft7Validator, FormatChecker

from sosoapi.api.problems import PROBLEM_SCHEMA

RETRIEVE = "/research-api/evidence/retrieve"
RETRIEVE_TOOL = "sosoapi_research_evidence_retrieve"


def assert_store_unavailable_text(text: str) -> None:
    """The caller is told the database is unavailable and to retry the same mutation_id."""
    assert "database is unavailable" in text, text
    assert "same mutation_id" in text, text
    assert "Traceback" not in text and "psycopg" not in text and "sqlite3" not in text, text


def assert_store_unavailable(response: httpx.Response) -> None:
    """A 503 problem+json (valid against the published problem schema) naming the outage,
    with `Retry-After`."""
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert int(response.headers["retry-after"]) > 0
    problem = response.json()
    errors = list(
        Draft7Validator(PROBLEM_SCHEMA, format_checker=FormatChecker()).iter_errors(problem)
    )
    assert not errors, errors
    assert problem["type"].endswith("/unavailable") and problem["status"] == 503
    assert_store_unavailable_text(problem["detail"])


def retrieve_body(workspace_id: str, url: str, mutation_id: str) -> dict[str, Any]:
    return {
        "url": url,
        "kind": "url_text",
        "workspace_id": workspace_id,
        "mutation_id": mutation_id,
    }


def assert_nothing_half_written(engine: sa.Engine) -> None:
    """Every receipt has its mutation and vice versa; settled reads point at whole evidence."""
    with engine.connect() as conn:
        orphans = conn.execute(
            sa.text(
                "SELECT count(*) FROM retrievals r LEFT JOIN mutations m ON "
                "m.workspace_id = r.workspace_id AND m.mutation_id = r.mutation_id "
                "WHERE m.mutation_id IS NULL"
            )
        ).scalar_one()
        keyless = conn.execute(
            sa.text(
                "SELECT count(*) FROM mutations m LEFT JOIN retrievals r ON "
                "m.workspace_id = r.workspace_id AND m.mutation_id = r.mutation_id "
                f"WHERE m.tool = '{RETRIEVE_TOOL}' AND r.id IS NULL"
            )
        ).scalar_one()
        settled_without_result = conn.execute(
            sa.text("SELECT count(*) FROM retrievals WHERE state = 'completed' AND result IS NULL")
        ).scalar_one()
        dangling_evidence = conn.execute(
            sa.text(
                "SELECT count(*) FROM retrievals r LEFT JOIN evidence_revisions v ON "
                "v.evidence_id = r.evidence_id AND v.revision = r.evidence_revision "
                "WHERE r.evidence_id IS NOT NULL AND v.evidence_id IS NULL"
            )
        ).scalar_one()
        headless = conn.execute(
            sa.text(
                "SELECT count(*) FROM evidence e LEFT JOIN evidence_revisions v ON "
                "v.evidence_id = e.id AND v.revision = e.latest_revision "
                "WHERE v.evidence_id IS NULL"
            )
        ).scalar_one()
    assert (orphans, keyless, settled_without_result, dangling_evidence, headless) == (
        0,
        0,
        0,
        0,
        0,
    )
