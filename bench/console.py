"""Review console pages with 10,000 retrievals in the workspace, p50/p99, both stores.

Seeds a workspace the way an agent does (a page, a hostile page, captions, a missing page,
an unsafe URL, a project and a sealed corpus, then second readings of three sources) plus
10,000 settled retrievals and, so that search pages fill up, 1,000 generated English
documents (200 of them with a second revision, written as `bench/search.py` writes them);
then signs in to a real `sosoapi serve` and fetches every console page N times in
sequence; `GET /healthz` of the same server is the floor. Target: every page under 50 ms.

    .venv/bin/python bench/console.py [--n 100] [--postgres URL]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support.console: its seeding is not in sosoapi.testing yet

from common import latency_args, percentiles, print_table  # noqa: E402
from search import bulk_evidence  # noqa: E402
from sosoapi.application import Application  # noqa: E402
from sosoapi.config import Settings  # noqa: E402
from sosoapi.store.settings import sqlite_url  # noqa: E402
from sosoapi.store.tables import evidence  # noqa: E402
from sosoapi.testing.origin import HTTPSOrigin  # noqa: E402
from sosoapi.testing.postgres import private_schema  # noqa: E402
from sosoapi.testing.processes import ServeProcess  # noqa: E402
from tests.support.console import Seeded, seed_workspace  # noqa: E402

RETRIEVALS = 10_000
DOCUMENTS, REWRITTEN = 1_000, 200
TARGET_MS = 50.0


def pages(
    ws: str, seeded: Seeded, cursor: str, rewritten: str, search_cursor: str
) -> dict[str, str]:
    base = f"/console/workspaces/{ws}"
    plain, captions = seeded.plain["evidence"], seeded.captions["evidence"]
    return {
        "overview": base,
        "retrievals": base + "/retrievals",
        "retrievals ?status=blocked": base + "/retrievals?status=blocked",
        "retrievals ?reason=timeout": base + "/retrievals?state=completed&reason=timeout",
        "retrievals, page 100": base + f"/retrievals?cursor={cursor}",
        "retrieval": base + f"/retrievals/{seeded.plain['id']}",
        "evidence (text)": base + f"/evidence/{plain['evidence_id']}?revision=1",
        "evidence (captions)": base + f"/evidence/{captions['evidence_id']}",
        "evidence list": base + "/evidence",
        "projects": base + "/projects",
        "project": base + f"/projects/{seeded.project_id}",
        "corpora": base + "/corpora",
        "corpus": base + f"/corpora/{seeded.corpus_id}",
        "diff (text, one change)": base + f"/evidence/{plain['evidence_id']}/diff?from=1&to=2",
        "diff (captions)": base + f"/evidence/{captions['evidence_id']}/diff?from=1&to=2",
        "diff (document rewritten)": base + f"/evidence/{rewritten}/diff?from=1&to=2",
        "search form": base + "/search",
        "search: 20 results": base + "/search?q=council",
        "search: 20 results, page 2": base + f"/search?q=council&cursor={search_cursor}",
        "search: phrase, kind": base + '/search?q="public+health"&kind=url_text',
        "search: in a corpus": base + f"/search?q=paragraph&corpus={seeded.corpus_id}",
    }


def next_page(http: httpx.Client, base: str, url: str) -> str:
    """The URL a page's "Next page" link points to."""
    text = http.get(url).text
    marker = text.index('rel="next" href="') + len('rel="next" href="')
    return base + text[marker : text.index('"', marker)].replace("&amp;", "&")


def deep_cursor(http: httpx.Client, base: str, ws: str, pages_deep: int) -> str:
    """The cursor of page `pages_deep` of the retrievals table, by following next links."""
    url = f"{base}/console/workspaces/{ws}/retrievals"
    for _ in range(pages_deep - 1):
        url = next_page(http, base, url)
    return url.split("cursor=", 1)[1]


def add_documents(env: dict[str, str], workspace_id: str, seeded: Seeded) -> str:
    """The generated documents; returns the id of one read twice (rewritten in between)."""
    app = Application(Settings.from_env(env))
    bulk_evidence(app, workspace_id, DOCUMENTS, REWRITTEN, ["en"])
    own = {r["evidence"]["evidence_id"] for r in (seeded.plain, seeded.hostile, seeded.captions)}
    with app.store.db.read() as conn:
        twice = conn.execute(
            sa.select(evidence.c.id).where(
                evidence.c.workspace_id == workspace_id,
                evidence.c.latest_revision == 2,
                evidence.c.id.not_in(own),
            )
        ).scalars()
        rewritten = str(next(iter(twice)))
    app.store.close()
    return rewritten


def analyze(url: str) -> None:
    """Statistics for the freshly bulk-loaded tables, as autovacuum would gather them."""
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text("VACUUM ANALYZE" if url.startswith("postgresql") else "ANALYZE"))
    engine.dispose()


def run_store(label: str, env: dict[str, str], origin: HTTPSOrigin, n: int) -> list[tuple]:
    workspace_id, token, seeded = seed_workspace(env, origin, RETRIEVALS)
    rewritten = add_documents(env, workspace_id, seeded)
    analyze(env["SOSOAPI_DATABASE_URL"])
    rows = []
    with ServeProcess(env, ready_seconds=120) as server, httpx.Client(timeout=30) as http:
        signed = http.post(server.base + "/console/sign-in", data={"token": token})
        assert signed.status_code == 303, signed.text
        cursor = deep_cursor(http, server.base, workspace_id, 100)
        found = f"{server.base}/console/workspaces/{workspace_id}/search?q=council"
        search_cursor = next_page(http, server.base, found).split("cursor=", 1)[1]
        floor = []
        for _ in range(n):
            start = time.perf_counter()
            http.get(server.base + "/healthz")
            floor.append(time.perf_counter() - start)
        f50, _ = percentiles(floor)
        rows.append((label, "GET /healthz (floor)", *percentiles(floor), 1.0))
        chosen = pages(workspace_id, seeded, cursor, rewritten, search_cursor)
        for name, path in chosen.items():
            assert http.get(server.base + path).status_code == 200, path
            samples = []
            for _ in range(n):
                start = time.perf_counter()
                response = http.get(server.base + path)
                samples.append(time.perf_counter() - start)
                assert response.status_code == 200
            p50, p99 = percentiles(samples)
            rows.append((label, name, p50, p99, p50 / f50))
    return rows


def main() -> None:
    args = latency_args()
    rows: list[tuple] = []
    base = {"SOSOAPI_LOG_LEVEL": "WARNING", "PATH": os.environ.get("PATH", "")}
    with HTTPSOrigin() as origin:
        base.update(origin.egress_env())
        with tempfile.TemporaryDirectory() as home:
            env = {**base, "SOSOAPI_HOME": home, "SOSOAPI_DATABASE_URL": sqlite_url(Path(home))}
            rows += run_store("sqlite", env, origin, args.n)
        with tempfile.TemporaryDirectory() as home, private_schema(args.postgres, "bench") as url:
            env = {**base, "SOSOAPI_HOME": home, "SOSOAPI_DATABASE_URL": url}
            rows += run_store("postgres", env, origin, args.n)
    print_table(
        f"console pages with {RETRIEVALS} retrievals, n={args.n} sequential GETs per row (ms)",
        rows,
    )
    slow = [(s, name, p99) for s, name, _, p99, _ in rows if p99 >= TARGET_MS]
    print(
        f"target: every page p99 < {TARGET_MS:.0f} ms: " + ("met" if not slow else f"missed {slow}")
    )


if __name__ == "__main__":
    main()
