"""Several `sosoapi serve` instances on one PostgreSQL under many concurrent REST clients.

Each mutation is sent to every instance at the same instant (`--burst`, the default) or
claimed on one, then replayed round-robin on the others until its receipt settles. Every
answer is counted by status; one that is not 200 is printed with its body, and the
servers' logs are searched for each incident id it names (the log line carries the stack).
The origin counts fetches per path, so "exactly one fetch per mutation" is checked too.
`--kill` kills the last instance halfway through, as the suite's scale test does.

    .venv/bin/python bench/instances.py [--clients 200] [--mutations 4000] [--instances 3]
        [--no-burst] [--kill] [--logs DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.cluster import ThrowawayCluster  # noqa: E402
from tests.support.origin import HTTPSOrigin, Route  # noqa: E402
from tests.support.postgres import private_schema  # noqa: E402
from tests.support.services import ServeProcess, cli  # noqa: E402

RETRIEVE_PATH = "/research-api/evidence/retrieve"
PAGE = b"<html><head><title>T</title></head><body><p>" + b"Plain words here. " * 40 + b"</p>"
SETTLED = ("completed", "cancelled", "unconfirmed", "expired")
SLOW_SECONDS = 30.0  # the wait budget is 5 s: a call this slow was stuck somewhere


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--mutations", type=int, default=2000)
    parser.add_argument("--instances", type=int, default=3)
    parser.add_argument("--no-burst", dest="burst", action="store_false")
    parser.add_argument("--kill", action="store_true", help="kill one instance halfway")
    parser.add_argument("--logs", default=None, help="folder for the servers' logs")
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=0,
        help="run on a throwaway PostgreSQL with this max_connections (default: the shared one)",
    )
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "SOSOAPI_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
        ),
    )
    return parser.parse_args()


def serve_env(origin: HTTPSOrigin, home: str, url: str, log_level: str) -> dict[str, str]:
    """Short leases and budgets, no pacing: the scale test's settings."""
    return {
        **origin.egress_env(),
        "SOSOAPI_HOME": home,
        "SOSOAPI_DATABASE_URL": url,
        "SOSOAPI_LOG_LEVEL": log_level,
        "SOSOAPI_EGRESS_PER_ORIGIN_MIN_INTERVAL": "0",
        "SOSOAPI_EGRESS_PER_ORIGIN_CONCURRENCY": "16",
        "SOSOAPI_PARSE_WORKERS": "0",
        "SOSOAPI_LEASE_SECONDS": "4",
        "SOSOAPI_SWEEP_INTERVAL_SECONDS": "0.5",
        "SOSOAPI_WAIT_BUDGET_SECONDS": "5",
    }


class Load:
    """The clients' side: answers counted by status, failures kept for the report."""

    def __init__(self, http: httpx.AsyncClient, workspace_id: str, origin: HTTPSOrigin) -> None:
        self.http = http
        self.workspace_id = workspace_id
        self.origin = origin
        self.statuses: Counter[int | str] = Counter()
        self.states: Counter[str] = Counter()
        self.failures: list[str] = []
        self.incidents: list[str] = []
        self.latencies: list[float] = []
        self.down: set[str] = set()
        self.done = 0

    async def post(self, base: str, path: str, mutation_id: str) -> dict | None:
        request = {
            "url": self.origin.url(path),
            "kind": "url_text",
            "workspace_id": self.workspace_id,
            "mutation_id": mutation_id,
        }
        sent = time.monotonic()
        try:
            answer = await self.http.post(base + RETRIEVE_PATH, json=request)
        except httpx.TransportError as exc:
            self.statuses[type(exc).__name__] += 1
            if base not in self.down:
                self.failures.append(f"{type(exc).__name__} from live {base}")
            return None
        took = time.monotonic() - sent
        self.statuses[answer.status_code] += 1
        self.latencies.append(took)
        if took > SLOW_SECONDS:
            self.failures.append(f"slow {took:.0f} s {base} {path} {mutation_id}")
        if answer.status_code != 200:
            self.failures.append(f"{answer.status_code} {base} {path} {answer.text[:500]}")
            problem = answer.json() if "json" in answer.headers.get("content-type", "") else {}
            if incident := problem.get("incident_id"):
                self.incidents.append(incident)
            return None
        return answer.json()["retrieval"]

    async def settle(self, bases: list[str], path: str, index: int, burst: bool) -> None:
        """Claim (on every instance at once, or on one), then replay until settled."""
        mutation_id = str(uuid.uuid4())
        live = [b for b in bases if b not in self.down]
        if burst:
            firsts = await asyncio.gather(*(self.post(b, path, mutation_id) for b in live))
        else:
            firsts = [await self.post(live[index % len(live)], path, mutation_id)]
        ids = {r["id"] for r in firsts if r}
        turn = index + 1
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            base = bases[turn % len(bases)]
            turn += 1
            if base in self.down:
                continue
            receipt = await self.post(base, path, mutation_id)
            if receipt is None:
                await asyncio.sleep(0.2)
                continue
            ids.add(receipt["id"])
            if receipt["state"] in SETTLED:
                self.states[receipt["state"]] += 1
                break
        else:
            self.failures.append(f"never settled {path} {mutation_id}")
        if len(ids) > 1:
            self.failures.append(f"two receipts for one mutation {path}: {sorted(ids)}")
        self.done += 1


async def drive(
    created: dict, origin: HTTPSOrigin, servers: list[ServeProcess], paths: list[str], args
) -> Load:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    headers = {"Authorization": f"Bearer {created['token']}"}
    async with httpx.AsyncClient(timeout=300, limits=limits, headers=headers) as http:
        load = Load(http, created["workspace_id"], origin)
        await run_clients(load, servers, paths, args)
    return load


async def run_clients(load: Load, servers: list[ServeProcess], paths: list[str], args) -> None:
    bases = [server.base for server in servers]
    queue: asyncio.Queue[tuple[int, str]] = asyncio.Queue()
    for item in enumerate(paths):
        queue.put_nowait(item)
    start = time.monotonic()

    async def client() -> None:
        while not queue.empty():
            index, path = queue.get_nowait()
            await load.settle(bases, path, index, args.burst)

    async def report() -> None:
        killed = False
        while True:
            await asyncio.sleep(10)
            print(
                f"{load.done} mutations, {sum(load.statuses.values())} calls, "
                f"{dict(load.statuses)}, {time.monotonic() - start:.0f} s",
                flush=True,
            )
            if args.kill and not killed and load.done >= len(paths) // 2:
                load.down.add(servers[-1].base)
                servers[-1].kill()
                killed = True
                print(f"killed {servers[-1].base}", flush=True)

    reporter = asyncio.create_task(report())
    await asyncio.gather(*(client() for _ in range(args.clients)))
    reporter.cancel()


def stacks(logs: Path, incidents: list[str]) -> list[str]:
    """Each server log line that names one of `incidents`, or logs any other error."""
    found = []
    for log in sorted(logs.glob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if any(i in line for i in incidents) or "level=error" in line:
                found.append(f"{log.name}: {line[:4000]}")
    return found


@contextlib.contextmanager
def database(args: argparse.Namespace) -> Iterator[str]:
    """A private schema on the shared server, or a throwaway cluster of limited size."""
    if not args.max_connections:
        with private_schema(args.postgres, "bench") as url:
            yield url
        return
    with ThrowawayCluster(max_connections=args.max_connections) as cluster:
        yield cluster.url


def main() -> None:
    args = arguments()
    logs = Path(args.logs or tempfile.mkdtemp(prefix="sosoapi-instances-"))
    logs.mkdir(parents=True, exist_ok=True)
    paths = [f"/p/{n}" for n in range(args.mutations)]
    with (
        HTTPSOrigin({p: Route(PAGE) for p in paths}) as origin,
        tempfile.TemporaryDirectory() as home,
        database(args) as url,
    ):
        env = serve_env(origin, home, url, args.log_level)
        created = json.loads(cli(["init", "--json"], env).stdout)
        servers = [ServeProcess(env, log=logs / f"serve-{n}.log") for n in range(args.instances)]
        start = time.monotonic()
        try:
            for server in servers:
                server.start()
            load = asyncio.run(drive(created, origin, servers, paths, args))
        finally:
            for server in servers:
                server.stop()
        seconds = time.monotonic() - start
        fetched = Counter(origin.hits[p] for p in paths)
    ordered = sorted(load.latencies) or [0.0]
    print(f"{len(paths)} mutations, {sum(load.statuses.values())} calls in {seconds:.0f} s")
    print(f"statuses {dict(load.statuses)}; settled {dict(load.states)}")
    print(f"fetches per mutation {dict(fetched)}")
    print(
        f"call seconds p50 {ordered[len(ordered) // 2]:.2f} "
        f"p99 {ordered[len(ordered) * 99 // 100]:.2f} max {ordered[-1]:.1f}"
    )
    for failure in load.failures[:30]:
        print("FAIL", failure)
    for line in stacks(logs, load.incidents):
        print(line)
    print(f"logs in {logs}")


if __name__ == "__main__":
    main()
