"""Where PostgreSQL's CPU per retrieval goes: bench/load.py's one-process PostgreSQL row
(MCP clients retrieving real pages from many host names), with `pg_stat_statements` read
around the measured calls: per statement its calls, execution and planning time, rows and
WAL per retrieval; and per retrieval the statements, transactions, WAL bytes and the
backends' CPU (bench/load.py's `db` group).

The cluster must preload `pg_stat_statements` (`shared_preload_libraries`) and be this
run's own (its statistics are reset): start a throwaway one, never the shared server.

    .venv/bin/python bench/statements.py --postgres postgresql+psycopg://postgres@127.0.0.1:5499/test
        [--calls 160] [--rounds 1] [--revision REV] [--top 30]

`--revision REV` runs that revision's `src` (a temporary git worktree) instead of this
checkout, with this venv; `--rounds N` alternates this checkout and REV N times.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import sqlalchemy as sa

from load import (
    CpuUse,
    _below_children,
    checkout,
    database_processes,
    fresh_urls,
    hostnames,
    many_hosts_env,
    mcp_load,
    page_routes,
    warm_up,
)
from sosoapi.testing.origin import HTTPSOrigin, Route
from sosoapi.testing.postgres import private_schema
from sosoapi.testing.processes import ServeProcess, cli

STATEMENTS = """
SELECT queryid, query, calls, total_exec_time, total_plan_time, plans, rows, wal_bytes,
       shared_blks_hit + shared_blks_read AS blocks
FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = :db)
"""
TABLES = (
    "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
    "WHERE n_tup_ins + n_tup_upd > 0 AND schemaname = current_setting('search_path')"
)
DATABASE = "SELECT xact_commit + xact_rollback, sessions FROM pg_stat_database WHERE datname = :db"


def snapshot(engine: sa.Engine, db: str) -> dict:
    """The cluster's statement counters, transactions and WAL position now."""
    time.sleep(1.5)  # backends flush their transaction counts at most once a second
    with engine.connect() as conn:
        conn.execute(sa.text("SELECT pg_stat_force_next_flush()"))
        rows = conn.execute(sa.text(STATEMENTS), {"db": db}).mappings().all()
        xacts, sessions = conn.execute(sa.text(DATABASE), {"db": db}).one()
        lsn = conn.execute(sa.text("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")).scalar_one()
    return {
        "statements": {r["queryid"]: dict(r) for r in rows},
        "xacts": xacts,
        "sessions": sessions,
        "lsn": lsn,
    }


def table_counts(url: str) -> dict[str, tuple[int, int, int]]:
    """Rows inserted, updated and updated HOT (no index touched) in the row's schema."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    time.sleep(1.5)
    with engine.connect() as conn:
        conn.execute(sa.text("SELECT pg_stat_force_next_flush()"))
        found = {r[0]: tuple(r[1:]) for r in conn.execute(sa.text(TABLES))}
    engine.dispose()
    return found


def measured_row(env: dict, urls: list[str], args, admin: sa.Engine, db: str) -> dict:
    """One server on a fresh schema: warm-up calls, then the counted calls with the
    statistics and CPU read around them."""
    created = json.loads(cli(["init", "--json"], env).stdout)
    with ServeProcess(env) as server:
        assert server.proc is not None
        time.sleep(2)
        load = functools.partial(mcp_load, server.base, created["token"], created["workspace_id"])
        asyncio.run(load(warm_up(urls, args), args.clients))
        main = psutil.Process(server.proc.pid)
        before = snapshot(admin, db)
        tables_before = table_counts(env["SOSOAPI_DATABASE_URL"])
        with CpuUse(
            server=lambda: [main, *main.children()],
            parse=functools.partial(_below_children, main),
            db=functools.partial(database_processes, main, env["SOSOAPI_DATABASE_URL"]),
        ) as cpu:
            _, latencies, errors = asyncio.run(load(urls, args.clients))
        after = snapshot(admin, db)
        tables_after = table_counts(env["SOSOAPI_DATABASE_URL"])
    tables = {
        name: tuple(
            (n - b) / max(len(latencies), 1)
            for n, b in zip(counts, tables_before.get(name, (0, 0, 0)), strict=True)
        )
        for name, counts in tables_after.items()
    }
    return {
        "tables": tables,
        "calls": len(latencies),
        "errors": errors,
        "cpu": cpu.per_call_ms(len(latencies)),
        "before": before,
        "after": after,
    }


def per_retrieval(found: dict) -> tuple[list[dict], dict]:
    """Each statement's counters over the counted calls, divided by the calls, and totals."""
    calls = found["calls"]
    before, after = found["before"]["statements"], found["after"]["statements"]
    rows = []
    for queryid, end in after.items():
        start = before.get(queryid, {})
        delta = {
            k: end[k] - start.get(k, 0)
            for k in (
                "calls",
                "total_exec_time",
                "total_plan_time",
                "plans",
                "rows",
                "wal_bytes",
                "blocks",
            )
        }
        if delta["calls"] <= 0 or "pg_stat" in end["query"]:
            continue
        rows.append({"query": end["query"], **{k: float(v) / calls for k, v in delta.items()}})
    rows.sort(key=lambda r: -(r["total_exec_time"] + r["total_plan_time"]))
    totals = {
        "statements": sum(r["calls"] for r in rows),
        "exec_ms": sum(r["total_exec_time"] for r in rows),
        "plan_ms": sum(r["total_plan_time"] for r in rows),
        "wal_bytes": sum(r["wal_bytes"] for r in rows),
        "xacts": (found["after"]["xacts"] - found["before"]["xacts"]) / calls,
        "sessions": (found["after"]["sessions"] - found["before"]["sessions"]) / calls,
        "wal_lsn": float(found["after"]["lsn"] - found["before"]["lsn"]) / calls,
        "db_cpu_ms": found["cpu"]["db"],
        "server_cpu_ms": found["cpu"]["server"],
    }
    return rows, totals


def print_table(label: str, rows: list[dict], totals: dict, top: int) -> None:
    print(f"\n{label}: per retrieval " + ", ".join(f"{k} {v:.2f}" for k, v in totals.items()))
    print("| calls | exec ms | plan ms | rows | WAL bytes | blocks | statement |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for r in rows[:top]:
        query = " ".join(r["query"].split())[:150].replace("|", "\\|")
        print(
            f"| {r['calls']:.2f} | {r['total_exec_time']:.3f} | {r['total_plan_time']:.3f} | "
            f"{r['rows']:.2f} | {r['wal_bytes']:.0f} | {r['blocks']:.1f} | `{query}` |"
        )


@contextlib.contextmanager
def sources(revision: str | None) -> Iterator[Path | None]:
    if revision:
        with checkout(revision) as source:
            yield source
    else:
        yield None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--postgres", required=True, help="a throwaway cluster's database URL")
    parser.add_argument("--calls", type=int, default=160)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--hosts", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--revision", default=None)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--pages", choices=("dev", "tests"), default=None)
    args = parser.parse_args()
    pages = page_routes(args.pages)
    routes = {path: Route(body, content_type="text/html") for path, body in pages.items()}
    hosts = hostnames(args.hosts)
    admin = sa.create_engine(args.postgres, poolclass=sa.pool.NullPool)
    db = admin.url.database
    with admin.connect() as conn:
        conn.execute(sa.text("SELECT pg_stat_statements_reset()"))
    seen: dict[str, list[dict]] = {}
    with HTTPSOrigin(routes, hostnames=(*hosts, "127.0.0.1")) as origin:
        env_base = {**many_hosts_env(origin, hosts), "SOSOAPI_ROBOTS_CACHE_SECONDS": "3600"}
        with sources(args.revision) as source:
            sides = {"now": env_base}
            if source is not None:
                sides = {"now": env_base, args.revision: {**env_base, "PYTHONPATH": str(source)}}
            for number in range(args.rounds):
                order = list(sides) if number % 2 == 0 else list(sides)[::-1]
                for which in order:
                    urls = fresh_urls(origin, hosts, list(routes), args.calls)
                    with (
                        tempfile.TemporaryDirectory() as home,
                        private_schema(args.postgres, "stmt") as url,
                    ):
                        env = {**sides[which], "SOSOAPI_HOME": home, "SOSOAPI_DATABASE_URL": url}
                        found = measured_row(env, urls, args, admin, db)
                    rows, totals = per_retrieval(found)
                    seen.setdefault(which, []).append(totals)
                    print_table(
                        f"round {number + 1} {which} errors={len(found['errors'])}",
                        rows,
                        totals,
                        args.top,
                    )
                    print(
                        "per retrieval (inserted, updated, updated HOT):",
                        {
                            name: tuple(round(v, 2) for v in counts)
                            for name, counts in sorted(found["tables"].items())
                        },
                    )
    for which, runs in seen.items():
        medians = {k: statistics.median(t[k] for t in runs) for k in runs[0]}
        print(
            f"{which}: median of {len(runs)}: "
            + ", ".join(f"{k} {v:.2f}" for k, v in medians.items())
        )


if __name__ == "__main__":
    main()
