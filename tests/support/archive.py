"""Sealing a corpus the way a surface does, for the capture and export tests."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from sosoapi.application import Application
from sosoapi.research.corpora.wacz_package import ExportSummary
from tests.support.calls import run

P = "sosoapi_research_"


def key() -> str:
    return str(uuid.uuid4())


async def seal(app: Application, token: str, ws: str, evidence_ids: list[str]) -> dict[str, Any]:
    """Create a project with these sources and seal it; the sealed snapshot."""
    created, _ = await run(
        app, token, P + "projects_create", {"workspace_id": ws, "mutation_id": key(), "title": "T"}
    )
    pid = created["project"]["id"]
    await run(
        app,
        token,
        P + "projects_add_sources",
        {"workspace_id": ws, "mutation_id": key(), "project_id": pid, "evidence_ids": evidence_ids},
    )
    sealed, _ = await run(
        app,
        token,
        P + "corpora_seal",
        {"workspace_id": ws, "mutation_id": key(), "project_id": pid},
    )
    snapshot: dict[str, Any] = sealed["snapshot"]
    return snapshot


async def export_to(
    app: Application, token: str, ws: str, corpus_id: str, target: Path
) -> ExportSummary:
    """Export the corpus's latest revision as a WACZ file at `target`."""
    with open(target, "wb") as out:  # noqa: ASYNC230 (a test's scratch file)
        return await app.research.export_corpus(token, ws, corpus_id, None, out)
