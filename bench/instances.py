"""Several `sosoapi serve` instances on one PostgreSQL under many concurrent REST clients.

Each mutation is sent to every instance at the same instant, then replayed round-robin
until its receipt settles (sosoapi.testing.instances). Prints answers by status, settled
states, fetches per mutation (the origin counts them), call latencies, every failure, the
servers' log lines naming an incident or a store fault, and the peak number of database
connections the instances held. `--kill` kills the last instance halfway through;
`--max-connections N` runs on a throwaway PostgreSQL allowing N connections.

    .venv/bin/python bench/instances.py [--clients 200] [--mutations 2000] [--instances 3]
        [--pool-size 10] [--kill] [--max-connections N] [--logs DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from common import add_postgres_argument  # noqa: E402
from sosoapi.testing.cluster import ThrowawayCluster  # noqa: E402
from sosoapi.testing.instances import Load, client, logged_trouble  # noqa: E402
from sosoapi.testing.origin import HTTPSOrigin, Route  # noqa: E402
from sosoapi.testing.postgres import ConnectionPeak, private_schema, tagged  # noqa: E402
from sosoapi.testing.processes import ServeProcess, cli  # noqa: E402

PAGE = b"<html><head><title>T</title></head><body><p>" + b"Plain words here. " * 40 + b"</p>"


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--mutations", type=int, default=2000)
    parser.add_argument("--instances", type=int, default=3)
    parser.add_argument("--pool-size", type=int, default=0, help="SOSOAPI_DATABASE_POOL_SIZE")
    parser.add_argument("--kill", action="store_true", help="kill one instance halfway")
    parser.add_argument("--logs", default=None, help="folder for the servers' logs")
    parser.add_argument("--log-level", default="WARNING")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=0,
        help="run on a throwaway PostgreSQL allowing this many connections",
    )
    add_postgres_argument(parser)
    return parser.parse_args()


@contextlib.contextmanager
def database(args: argparse.Namespace) -> Iterator[str]:
    """A private schema on the shared server, or a throwaway cluster of limited size."""
    if not args.max_connections:
        with private_schema(args.postgres, "bench") as url:
            yield url
        return
    settings = {"max_connections": args.max_connections, "superuser_reserved_connections": 0}
    with ThrowawayCluster(**settings) as cluster:
        yield cluster.url


def serve_env(origin: HTTPSOrigin, home: str, url: str, args) -> dict[str, str]:
    """The scale test's settings: short leases and budgets, no pacing."""
    env = {
        **origin.egress_env(),
        "SOSOAPI_HOME": home,
        "SOSOAPI_DATABASE_URL": url,
        "SOSOAPI_LOG_LEVEL": args.log_level,
        "SOSOAPI_EGRESS_PER_ORIGIN_MIN_INTERVAL": "0",
        "SOSOAPI_EGRESS_PER_ORIGIN_CONCURRENCY": "16",
        "SOSOAPI_PARSE_WORKERS": "0",
        "SOSOAPI_LEASE_SECONDS": "4",
        "SOSOAPI_SWEEP_INTERVAL_SECONDS": "0.5",
        "SOSOAPI_WAIT_BUDGET_SECONDS": "5",
    }
    if args.pool_size:
        env["SOSOAPI_DATABASE_POOL_SIZE"] = str(args.pool_size)
    return env


async def drive(token: str, workspace_id: str, origin, servers, paths, args) -> Load:
    bases = [server.base for server in servers]
    async with client(token) as http:
        load = Load(http, workspace_id, origin)
        start = time.monotonic()

        async def report() -> None:
            killed = False
            while True:
                await asyncio.sleep(10)
                print(
                    f"{len(load.receipts)} settled, {sum(load.statuses.values())} calls, "
                    f"{dict(load.statuses)}, {time.monotonic() - start:.0f} s",
                    flush=True,
                )
                if args.kill and not killed and len(load.receipts) >= len(paths) // 2:
                    load.down.add(servers[-1].base)
                    servers[-1].kill()
                    killed = True
                    print(f"killed {servers[-1].base}", flush=True)

        reporter = asyncio.create_task(report())
        await load.run(bases, paths, args.clients)
        reporter.cancel()
    return load


def main() -> None:
    args = arguments()
    logs = Path(args.logs or tempfile.mkdtemp(prefix="sosoapi-instances-"))
    logs.mkdir(parents=True, exist_ok=True)
    paths = [f"/p/{n}" for n in range(args.mutations)]
    with (
        HTTPSOrigin({p: Route(PAGE) for p in paths}) as origin,
        tempfile.TemporaryDirectory() as home,
        database(args) as base_url,
    ):
        url, name = tagged(base_url)
        env = serve_env(origin, home, url, args)
        created = json.loads(cli(["init", "--json"], env).stdout)
        servers = [ServeProcess(env, log=logs / f"serve-{n}.log") for n in range(args.instances)]
        start = time.monotonic()
        try:
            for server in servers:
                server.start()
            with ConnectionPeak(base_url, name) as peak:
                load = asyncio.run(
                    drive(created["token"], created["workspace_id"], origin, servers, paths, args)
                )
        finally:
            for server in servers:
                server.stop()
        seconds = time.monotonic() - start
        fetched = Counter(origin.hits[p] for p in paths)
    ordered = sorted(load.latencies) or [0.0]
    calls = sum(load.statuses.values())
    print(f"{len(paths)} mutations, {calls} calls in {seconds:.0f} s ({calls / seconds:.1f}/s)")
    print(f"statuses {dict(load.statuses)}; settled {dict(load.states)}")
    print(f"fetches per mutation {dict(fetched)}; peak database connections {peak.peak}")
    print(
        f"call seconds p50 {ordered[len(ordered) // 2]:.2f} "
        f"p99 {ordered[len(ordered) * 99 // 100]:.2f} max {ordered[-1]:.1f}"
    )
    for failure in load.failures[:30]:
        print("FAIL", failure)
    for line in logged_trouble(sorted(logs.glob("*.log")), load.incidents)[:30]:
        print(line)
    print(f"logs in {logs}")


if __name__ == "__main__":
    main()
