"""Evidence search over 10,000 revisions (p50/p99, index size), and the quote check.

Search: seeds a workspace with 10,000 evidence revisions (8,000 evidence records, 2,000
of them with a second revision) of generated text in English, German, Norwegian and
Arabic (words drawn from a Zipf law, so some are everywhere and some are rare), indexed
on write exactly as retrievals are; then runs each query class N times through the
service in-process. `evidence_list` of the same workspace is the floor (a plain indexed
read). The index size is the passages table plus its full-text index.

Quote: `find_quote` on a 20,000-character text made of the real pages in
`tests/data/pages`, for a 200-character quote of each verdict; `str.find` of the exact
quote is the floor. It is a pure single-threaded function, so it is timed in CPU time
(`time.process_time`): on a quiet machine that is its wall time, and on a shared one it
leaves out the time spent waiting for a core.

    .venv/bin/python bench/search.py [--n 300] [--postgres URL]

SOSOAPI_BENCH_STORES=sqlite (or postgres) measures one store only; `none` only the quote
check.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent

from common import latency_args, percentiles, print_table  # noqa: E402
from sosoapi.application import Application  # noqa: E402
from sosoapi.auth.admin import Admin  # noqa: E402
from sosoapi.config import Settings  # noqa: E402
from sosoapi.contract.models import RetrieveResult  # noqa: E402
from sosoapi.extract.html import extract_text_document  # noqa: E402
from sosoapi.research.algorithms.quote_match import find_quote  # noqa: E402
from sosoapi.research.evidence.identity import content_digest, evidence_write  # noqa: E402
from sosoapi.research.retrieval.finished import finished  # noqa: E402
from sosoapi.store.evidence_repo import record_revision  # noqa: E402
from sosoapi.store.settings import sqlite_url  # noqa: E402
from sosoapi.testing.pages import pages_dir, real_pages  # noqa: E402
from sosoapi.testing.postgres import private_schema  # noqa: E402
from sosoapi.testing.results import page_result  # noqa: E402

EVIDENCE = 8_000
SECOND_REVISIONS = 2_000
REVISIONS = EVIDENCE + SECOND_REVISIONS
WORDS = {
    "en": "the council approved budget public health school library harbour winter river "
    "market bridge teacher doctor nurse mayor city debate report energy water road",
    "de": "der die das rat haushalt gesundheit schule bibliothek hafen winter fluss markt "
    "brücke lehrer ärztin bürgermeister stadt bericht energie wasser straße häuser",
    "no": "kommunestyret budsjettet folkehelse skolen biblioteket havnen vinteren elven "
    "markedet broen læreren legen ordføreren byen rapporten energi vannet veien bøker",
    "ar": "المجلس ميزانية الصحة العامة المدرسة المكتبة الميناء الشتاء النهر السوق الجسر "
    "المعلم الطبيب الممرضة العمدة المدينة النقاش التقرير الطاقة المياه الطريق",
}
QUERIES = {
    "common word": "council",
    "two words": "harbour winter",
    "phrase": '"public health"',
    "rare word": "zeppelin",
    "German": "Brücke Straße",
    "Arabic": "ميزانية الصحة",
}


def _document(rng: random.Random, language: str, index: int) -> str:
    vocabulary = WORDS[language].split()
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    lines = []
    for _ in range(rng.randint(3, 6)):
        words = rng.choices(vocabulary, weights, k=rng.randint(20, 45))
        if rng.random() < 0.002:
            words.append("zeppelin")
        lines.append(" ".join(words) + f" {index}.")
    return "\n".join(lines)


def _result(text: str, language: str, title: str, now: datetime) -> RetrieveResult:
    return page_result(
        text,
        source_url=f"https://example.org/{title}",
        retrieved_at=now,
        title=title,
        language=language,
        mime_type="text/html",
    )


def bulk_evidence(
    app: Application, workspace_id: str, evidence: int, second_revisions: int, languages: list[str]
) -> None:
    """`evidence` generated documents (the first `second_revisions` of them read twice),
    written and indexed exactly as a retrieval writes them."""
    now = datetime.now(UTC)
    rng = random.Random(12)
    for start in range(0, evidence, 500):
        with app.store.db.write() as conn:
            for i in range(start, min(start + 500, evidence)):
                language = languages[i % len(languages)]
                for _version in range(2 if i < second_revisions else 1):
                    text = _document(rng, language, i)
                    read = finished(_result(text, language, f"doc-{i}", now))
                    item = evidence_write(workspace_id, read)
                    assert item is not None and item.digest == content_digest(read)
                    record_revision(app.store.db, conn, item, now)


def seed(app: Application) -> tuple[str, str]:
    """(workspace_id, token) of a workspace with 10,000 indexed evidence revisions."""
    workspace, minted = Admin(app.store.auth).init_local(datetime.now(UTC))
    bulk_evidence(app, workspace.id, EVIDENCE, SECOND_REVISIONS, list(WORDS))
    return workspace.id, minted.token


def settle_statistics(app: Application) -> None:
    """What autovacuum does within a minute of a bulk load, done now: without table
    statistics PostgreSQL plans 8,000 evidence rows as 37 and walks them all per query."""
    if app.store.db.is_sqlite:
        return
    with app.store.db.write() as conn:
        conn.execute(sa.text("ANALYZE evidence, evidence_revisions, evidence_passages"))


def index_bytes(app: Application) -> int:
    with app.store.db.read() as conn:
        if app.store.db.is_sqlite:
            query = (
                "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'evidence_fts%' "
                "OR name LIKE '%evidence_passages%'"
            )
        else:
            query = "SELECT pg_total_relation_size('evidence_passages')"
        return int(conn.execute(sa.text(query)).scalar_one())


def run_store(label: str, env: dict[str, str], n: int) -> tuple[list[tuple], int, float]:
    app = Application(Settings.from_env(env))
    started = time.perf_counter()
    ws, token = seed(app)
    seeded = time.perf_counter() - started
    settle_statistics(app)

    async def timed(tool: str, arguments: dict) -> list[float]:
        for _ in range(10):  # warm-up: validators and caches are built on first use
            await app.research.call(tool, token, {"workspace_id": ws, **arguments})
        out = []
        for _ in range(n):
            start = time.perf_counter()
            outcome = await app.research.call(tool, token, {"workspace_id": ws, **arguments})
            outcome.output.wire()
            out.append(time.perf_counter() - start)
        return out

    rows = [("evidence_list (floor)", asyncio.run(timed("sosoapi_research_evidence_list", {})))]
    for name, query in QUERIES.items():
        samples = asyncio.run(timed("sosoapi_research_evidence_search", {"query": query}))
        rows.append((f"search: {name}", samples))
    size = index_bytes(app)
    app.store.close()
    floor, _ = percentiles(rows[0][1])
    table = [(label, name, *percentiles(s), percentiles(s)[0] / floor) for name, s in rows]
    return table, size, seeded


def quote_rows(n: int) -> list[tuple]:
    parts = []
    for page in real_pages(pages_dir(ROOT)):
        document = extract_text_document(
            page.html, media_type="text/html", charset="utf-8", content_language=None
        )
        assert document is not None
        parts.append(document.text)
    text = "\n".join(parts * 4)[:20_000]
    assert len(text) == 20_000
    said = text[9_000:9_200]
    quotes = {
        "exact": said,
        "normalized": said.upper().replace(" ", "  "),
        "approximate": said[:80] + " and some words " + said[95:],
        "absent": "A sentence that appears nowhere in the text at all, said by nobody. " * 3,
    }
    samples = {"str.find (floor)": []}
    for _ in range(n):
        start = time.process_time()
        text.find(said)
        samples["str.find (floor)"].append(time.process_time() - start)
    for verdict, quote in quotes.items():
        assert find_quote(text, quote).verdict == verdict, verdict
        samples[f"quote: {verdict}"] = []
        for _ in range(n):
            start = time.process_time()
            find_quote(text, quote)
            samples[f"quote: {verdict}"].append(time.process_time() - start)
    floor, _ = percentiles(samples["str.find (floor)"])
    return [
        ("pure", name, *percentiles(s), percentiles(s)[0] / max(floor, 1e-6))
        for name, s in samples.items()
    ]


def main() -> None:
    stores = os.environ.get("SOSOAPI_BENCH_STORES", "sqlite,postgres").split(",")
    args = latency_args()
    quotes = quote_rows(max(args.n, 200))  # first: it needs no store
    print_table("quote check on a 20,000-character text, 200-character quotes (ms)", quotes)
    worst = max(p50 for _, name, p50, _, _ in quotes if name.startswith("quote"))
    print(f"slowest quote verdict p50 {worst:.2f} ms: {'under' if worst < 10 else 'OVER'} 10 ms")
    base = {"SOSOAPI_LOG_LEVEL": "WARNING", "PATH": os.environ.get("PATH", "")}
    rows: list[tuple] = []
    sizes = {}
    if "sqlite" in stores:
        with tempfile.TemporaryDirectory() as home:
            env = {**base, "SOSOAPI_HOME": home, "SOSOAPI_DATABASE_URL": sqlite_url(Path(home))}
            table, sizes["sqlite"], seeded = run_store("sqlite", env, args.n)
            print_table("sqlite (ms)", table)
            rows += table
            print(f"sqlite: seeded and indexed {REVISIONS} revisions in {seeded:.0f} s")
            print(f"sqlite: index size {sizes['sqlite'] / 2**20:.1f} MiB")
    if "postgres" not in stores:
        return
    with tempfile.TemporaryDirectory() as home, private_schema(args.postgres, "bench") as url:
        env = {**base, "SOSOAPI_HOME": home, "SOSOAPI_DATABASE_URL": url}
        table, sizes["postgres"], seeded = run_store("postgres", env, args.n)
        print_table("postgres (ms)", table)
        rows += table
        print(f"postgres: seeded and indexed {REVISIONS} revisions in {seeded:.0f} s")
        print(f"postgres: index size {sizes['postgres'] / 2**20:.1f} MiB")
    print_table(
        f"evidence_search over {REVISIONS} revisions, n={args.n} calls per row (ms)",
        rows,
    )
    print("index size: " + json.dumps({k: f"{v / 2**20:.1f} MiB" for k, v in sizes.items()}))


if __name__ == "__main__":
    main()
