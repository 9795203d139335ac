"""`corpora_get` of a 500-item corpus, p50/p99, on SQLite and PostgreSQL.

Builds a workspace with 500 evidence records, a project holding all of them and a sealed
corpus, then reads the corpus N times through the service (in-process) and through the
HTTP API of a real `sosoapi serve`; `GET /healthz` on the same server is the floor.

    .venv/bin/python bench/corpora.py [--n 300] [--postgres URL]
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent

from common import latency_args, percentiles, print_table  # noqa: E402
from sosoapi.application import Application, freeze_startup_heap  # noqa: E402
from sosoapi.auth.admin import Admin  # noqa: E402
from sosoapi.config import Settings  # noqa: E402
from sosoapi.research.evidence.identity import sha256_hex  # noqa: E402
from sosoapi.store.evidence_repo import record_revision  # noqa: E402
from sosoapi.store.records import EvidenceWrite  # noqa: E402
from sosoapi.store.settings import sqlite_url  # noqa: E402
from sosoapi.testing.postgres import private_schema  # noqa: E402
from sosoapi.testing.processes import ServeProcess  # noqa: E402

ITEMS = 500


def seed(app: Application) -> tuple[str, str, str]:
    """(workspace_id, token, corpus_id) of a sealed 500-item corpus."""
    now = datetime.now(UTC)
    workspace, minted = Admin(app.store.auth).init_local(now)
    with app.store.db.write() as conn:
        for i in range(ITEMS):
            content = f'{{"text": "evidence {i}"}}'
            record_revision(
                app.store.db,
                conn,
                EvidenceWrite(
                    workspace.id,
                    sha256_hex(f"bench:{i}"),
                    "url_text",
                    f"https://example.com/{i}",
                    "en",
                    sha256_hex(content),
                    content,
                ),
                now,
            )
        ids = list(conn.execute(sa.text("SELECT id FROM evidence")).scalars())

    async def build() -> str:
        async def call(tool: str, **arguments: object) -> dict:
            outcome = await app.research.call(
                tool, minted.token, {"workspace_id": workspace.id, **arguments}
            )
            return outcome.output.wire()

        project = await call(
            "sosoapi_research_projects_create", mutation_id=str(uuid.uuid4()), title="bench"
        )
        pid = project["project"]["id"]
        await call(
            "sosoapi_research_projects_add_sources",
            mutation_id=str(uuid.uuid4()),
            project_id=pid,
            evidence_ids=ids,
        )
        sealed = await call(
            "sosoapi_research_corpora_seal", mutation_id=str(uuid.uuid4()), project_id=pid
        )
        assert len(sealed["snapshot"]["evidence"]) == ITEMS
        return sealed["snapshot"]["id"]

    return workspace.id, minted.token, asyncio.run(build())


def run_store(label: str, env: dict[str, str], n: int) -> list[tuple]:
    settings = Settings.from_env(env)
    app = Application(settings)
    workspace_id, token, corpus_id = seed(app)
    arguments = {"workspace_id": workspace_id, "id": corpus_id}

    async def in_process() -> list[float]:
        out = []
        for _ in range(20):  # warm-up: validators and caches are built on first use
            await app.research.call("sosoapi_research_corpora_get", token, arguments)
        for _ in range(n):
            start = time.perf_counter()
            outcome = await app.research.call("sosoapi_research_corpora_get", token, arguments)
            outcome.output.wire()
            out.append(time.perf_counter() - start)
        return out

    freeze_startup_heap()  # as `Application.running()` does in a server
    service = asyncio.run(in_process())
    app.store.close()
    with ServeProcess(env) as server, httpx.Client(timeout=30) as http:
        headers = {"Authorization": f"Bearer {token}"}
        url = server.base + "/research-api/corpora/get"
        assert (
            len(http.post(url, json=arguments, headers=headers).json()["snapshot"]["evidence"])
            == ITEMS
        )
        floor, api = [], []
        for _ in range(n):
            start = time.perf_counter()
            http.get(server.base + "/healthz")
            floor.append(time.perf_counter() - start)
            start = time.perf_counter()
            http.post(url, json=arguments, headers=headers)
            api.append(time.perf_counter() - start)
    f50, _ = percentiles(floor)
    return [
        (label, name, *percentiles(samples), percentiles(samples)[0] / f50)
        for name, samples in (
            ("GET /healthz (floor)", floor),
            ("service call (in-process)", service),
            ("HTTP API", api),
        )
    ]


def main() -> None:
    args = latency_args()
    rows: list[tuple] = []
    base = {"SOSOAPI_LOG_LEVEL": "WARNING", "PATH": os.environ.get("PATH", "")}
    with tempfile.TemporaryDirectory() as home:
        rows += run_store(
            "sqlite",
            {**base, "SOSOAPI_HOME": home, "SOSOAPI_DATABASE_URL": sqlite_url(Path(home))},
            args.n,
        )
    with tempfile.TemporaryDirectory() as home, private_schema(args.postgres, "bench") as url:
        env = {**base, "SOSOAPI_HOME": home, "SOSOAPI_DATABASE_URL": url}
        rows += run_store("postgres", env, args.n)
    print_table(
        f"corpora_get of a {ITEMS}-item corpus, n={args.n} sequential calls per row (ms)", rows
    )


if __name__ == "__main__":
    main()
