"""Throughput under load: N concurrent MCP clients (streamable HTTP) retrieving pages from a
loopback HTTPS origin that answers for many host names, so per-origin politeness stays on.

Rows: SQLite and PostgreSQL, one server process and `serve --workers W`; each row gives
retrievals/s, p50/p99 per call, errors (an `isError`, or a receipt not `completed` and
`ready`/`partial`; what they were is printed under the table),
the server's peak RSS (the whole process tree) at rest and under the load, and the CPU
each call cost this bench process (the clients and the origin), the server processes,
their parsing processes and, on PostgreSQL, the database processes serving the server
(its connections' backends and the cluster's own processes, not other clients'). In the
same run, the floor: the same URLs fetched by a plain httpx client and run through our extractor
in a process pool sized to the machine, with no service around them.

    .venv/bin/python bench/load.py [--clients 16] [--calls 160] [--hosts 64] [--workers 2]
                                   [--pages dev|tests] [--baseline REV] [--stores sqlite,postgres]
                                   [--cpu-rounds N]

Every row first makes one uncounted call per host name (robots.txt, connections, the
parsing processes started). `--baseline` (default: main when issue 14 was filed) adds a
row per store for that revision's `sosoapi serve` (one process), checked out in a
temporary git worktree and run with this venv, so the figure it must beat comes from the
same machine and the same run. `/base` is each row against its own store's baseline,
`/sqlbase` against the SQLite baseline (the issue's figure was one number).

`--pages dev` (the default when the data folder is there) serves 181 real news and blog
pages of the extraction-dev set ($SOSOAPI_BENCH_DATA, default ../shared/data), from every
fifth page those our extractor reads as text and the service would not judge a login
wall; `--pages tests` the 4 small pages of tests/data.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gzip
import json
import os
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import httpx
import httpx2
import mcp
import psutil
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import make_url

ROOT = Path(__file__).resolve().parent.parent

from common import add_postgres_argument, percentiles  # noqa: E402
from sosoapi.config import default_workers  # noqa: E402
from sosoapi.extract.html import extract_text_document  # noqa: E402
from sosoapi.extract.walls import WALL_REASONS  # noqa: E402
from sosoapi.testing.memory import MIB, PeakRSS  # noqa: E402
from sosoapi.testing.origin import HTTPSOrigin, Route  # noqa: E402
from sosoapi.testing.pages import pages_dir, real_pages  # noqa: E402
from sosoapi.testing.postgres import private_schema  # noqa: E402
from sosoapi.testing.processes import ServeProcess, cli  # noqa: E402

RETRIEVE = "sosoapi_research_evidence_retrieve"
FILED = "212bced"  # main when issue 14 was filed: its figure is what the service must double
READ = ("ready", "partial")  # partial: the text was cut at the contract's limit


class CpuUse:
    """CPU seconds (user + system) spent by groups of processes while the block runs: where
    a retrieval's machine time goes (this bench process: the MCP or httpx clients and the
    origin; the server processes; their parsing processes). Each group is listed again at
    the end, so a process started during the block (a pool's worker) counts from its start.
    """

    def __init__(self, **groups: Callable[[], list[psutil.Process]]) -> None:
        self.groups = groups
        self.spent: dict[str, float] = {}
        self.seen: dict[str, int] = {}

    @staticmethod
    def _seconds(processes: list[psutil.Process]) -> dict[int, float]:
        spent = {}
        for process in processes:
            with contextlib.suppress(psutil.Error):  # a process that just exited
                times = process.cpu_times()
                spent[process.pid] = times.user + times.system
        return spent

    def __enter__(self) -> CpuUse:
        self._start = {name: self._seconds(group()) for name, group in self.groups.items()}
        return self

    def __exit__(self, *exc: object) -> None:
        for name, group in self.groups.items():
            end = self._seconds(group())
            start = self._start[name]
            self.spent[name] = sum(seconds - start.get(pid, 0.0) for pid, seconds in end.items())
            self.seen[name] = len(end)

    def per_call_ms(self, calls: int) -> dict[str, float | None]:
        """Milliseconds per call of each group; None for a group with no process."""
        return {
            name: 1000 * seconds / calls if self.seen[name] else None
            for name, seconds in self.spent.items()
        }


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--calls", type=int, default=160, help="retrievals per row")
    parser.add_argument("--hosts", type=int, default=64, help="host names the origin serves")
    parser.add_argument(
        "--workers", type=int, default=2, help="processes in the multi row (0: no such row)"
    )
    parser.add_argument("--stores", default="sqlite,postgres", help="the stores to run rows on")
    parser.add_argument(
        "--cpu-rounds",
        type=int,
        default=0,
        help="instead of the table: N rounds of this checkout's and the baseline's one-process "
        "rows, alternated, and the median CPU per call of each (for a busy machine)",
    )
    parser.add_argument("--pages", choices=("dev", "tests"), default=None)
    parser.add_argument(
        "--baseline",
        default=FILED,
        help="a git revision measured in the same run (empty: none)",
    )
    add_postgres_argument(parser)
    return parser.parse_args()


DATA = Path(os.environ.get("SOSOAPI_BENCH_DATA", ROOT.parent / "shared" / "data"))
DEV_PAGES = 181


def dev_pages() -> dict[str, bytes]:
    """181 real pages of the extraction-dev set that our extractor reads as text."""
    folder = DATA / "extraction-dev"
    cases = json.loads((folder / "cases.json").read_text(encoding="utf-8"))
    pages: dict[str, bytes] = {}
    for number, case in enumerate(cases[::5]):
        body = gzip.decompress((folder / case["file"]).read_bytes())
        if len(pages) < DEV_PAGES and readable(body, case["url"]):
            pages[f"/dev{number}"] = body
    return pages


def readable(body: bytes, url: str) -> bool:
    """Text our extractor keeps, on a page the service does not judge a wall."""
    document = extract_text(body, url)
    if document is None or not document.text.strip():
        return False
    return WALL_REASONS.isdisjoint(document.conditions)


def extract_text(body: bytes, url: str):
    return extract_text_document(
        body, media_type="text/html", charset=None, content_language=None, url=url
    )


def page_routes(choice: str | None) -> dict[str, bytes]:
    if choice == "dev" or (choice is None and (DATA / "extraction-dev").is_dir()):
        return dev_pages()
    return {f"/{page.name}": page.html for page in real_pages(pages_dir(ROOT))}


def hostnames(count: int) -> list[str]:
    return [f"h{n}.load.test" for n in range(count)]


def many_hosts_env(origin: HTTPSOrigin, hosts: list[str]) -> dict[str, str]:
    """A server's egress settings for `origin` answering under every name in `hosts`."""
    return {
        **origin.egress_env(),
        "SOSOAPI_EGRESS_RESOLVE": ",".join(f"{host}:127.0.0.1" for host in hosts),
        "SOSOAPI_LOG_LEVEL": "WARNING",
    }


def urls_for(origin: HTTPSOrigin, hosts: list[str], paths: list[str], calls: int) -> list[str]:
    """`calls` distinct URLs, spread over every host name (each a separate origin)."""
    return [
        origin.url(f"{paths[i % len(paths)]}?n={i}", host=hosts[i % len(hosts)])
        for i in range(calls)
    ]


async def mcp_load(base: str, token: str, workspace_id: str, urls: list[str], clients: int):
    """(seconds, per-call latencies, errors) of `clients` MCP sessions sharing `urls`."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for url in urls:
        queue.put_nowait(url)
    latencies: list[float] = []
    errors: list[str] = []

    async def client() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=120) as http,
            mcp.Client(streamable_http_client(f"{base}/mcp", http_client=http)) as session,
        ):
            while not queue.empty():
                url = queue.get_nowait()
                call = {
                    "url": url,
                    "kind": "url_text",
                    "workspace_id": workspace_id,
                    "mutation_id": str(uuid.uuid4()),
                }
                start = time.perf_counter()
                result = await session.call_tool(RETRIEVE, call)
                latencies.append(time.perf_counter() - start)
                receipt = (result.structured_content or {}).get("retrieval") or {}
                outcome = receipt.get("result") or {}
                if result.is_error:
                    errors.append(f"isError {url}")
                elif receipt.get("state") != "completed" or outcome.get("status") not in READ:
                    state = f"{receipt.get('state')}/{outcome.get('status')}"
                    errors.append(f"{state}/{outcome.get('reason')} {url}")

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return time.perf_counter() - start, latencies, errors


async def floor_load(origin: HTTPSOrigin, urls: list[str], clients: int, pool) -> tuple:
    """Plain httpx (pinned by the origin's CA and a transport to loopback) + our extractor."""
    semaphore = asyncio.Semaphore(clients)
    latencies: list[float] = []
    errors: list[str] = []
    loop = asyncio.get_running_loop()
    transport = httpx.AsyncHTTPTransport(verify=str(origin.ca_path), retries=0)

    async with httpx.AsyncClient(transport=transport, timeout=60, trust_env=False) as http:

        async def one(url: str) -> None:
            async with semaphore:
                start = time.perf_counter()
                host = url.split("/")[2].split(":")[0]
                loopback = url.replace(host, "127.0.0.1", 1)
                response = await http.get(
                    loopback, headers={"Host": host}, extensions={"sni_hostname": host}
                )
                parse = functools.partial(extract_text, response.content, url)
                document = await loop.run_in_executor(pool, parse)
                if document is None or not document.text:
                    errors.append(url)
                latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(one(url) for url in urls))
    return time.perf_counter() - start, latencies, [f"no text {url}" for url in errors]


def floor_row(origin: HTTPSOrigin, urls: list[str], args, pool) -> dict:
    asyncio.run(floor_load(origin, warm_up(urls, args), args.clients, pool))
    bench = psutil.Process()
    parse = functools.partial(bench.children, recursive=True)
    with CpuUse(bench=lambda: [bench], server=list, parse=parse) as cpu:
        seconds, latencies, errors = asyncio.run(floor_load(origin, urls, args.clients, pool))
    return row("floor: httpx + extractor pool", seconds, latencies, errors, cpu=cpu)


def serve_row(label: str, env: dict[str, str], urls: list[str], args, extra: tuple) -> dict:
    created = json.loads(cli(["init", "--json"], env).stdout)
    with ServeProcess(env, *extra) as server:
        assert server.proc is not None
        time.sleep(2)
        rest = PeakRSS(server.proc.pid, tree=True).rss()
        with PeakRSS(server.proc.pid, tree=True) as peak:
            load = functools.partial(
                mcp_load, server.base, created["token"], created["workspace_id"]
            )
            asyncio.run(load(warm_up(urls, args), args.clients))
            main = psutil.Process(server.proc.pid)
            bench = psutil.Process()
            with CpuUse(
                bench=lambda: [bench],
                server=lambda: [main, *main.children()],
                parse=functools.partial(_below_children, main),
                db=(
                    functools.partial(database_processes, main, env["SOSOAPI_DATABASE_URL"])
                    if "SOSOAPI_DATABASE_URL" in env
                    else list
                ),
            ) as cpu:
                seconds, latencies, errors = asyncio.run(load(urls, args.clients))
    return row(label, seconds, latencies, errors, rest, peak.peak, cpu)


def database_processes(server: psutil.Process, url: str) -> list[psutil.Process]:
    """The PostgreSQL processes working for this row: the backends of the server's own
    connections and their cluster's processes that serve no client (postmaster, WAL
    writer, checkpointer, autovacuum). Not other clients' backends: on a machine shared
    with test runs on the same cluster, counting every `postgres` process made this
    column move by more than a change measured."""
    port = make_url(url).port or 5432
    serving = {p.pid for p in (server, *server.children(recursive=True))}
    connections = psutil.net_connections(kind="tcp")
    ours = {c.laddr for c in connections if c.pid in serving and c.raddr and c.raddr.port == port}
    backends = {c.pid for c in connections if c.raddr in ours and c.pid is not None}
    cluster = [
        c.pid for c in connections if c.status == psutil.CONN_LISTEN and c.laddr.port == port
    ]
    found = []
    for pid in cluster[:1]:
        with contextlib.suppress(psutil.Error):
            postmaster = psutil.Process(pid)
            found.append(postmaster)
            for child in postmaster.children():
                with contextlib.suppress(psutil.Error):
                    if child.pid in backends or not _is_client_backend(child):
                        found.append(child)
    return found


def _is_client_backend(process: psutil.Process) -> bool:
    """A backend's title names its user, database and client ("postgres: u db 1.2.3.4(5)")."""
    return "(" in " ".join(process.cmdline())


def warm_up(urls: list[str], args) -> list[str]:
    """One uncounted call per host name first (robots.txt read, connection open, parsing
    processes started): the rows measure a running service, as the floor measures a
    running pool."""
    return [f"{url}&warm=1" for url in urls[: args.hosts]]


def row(
    label: str,
    seconds: float,
    latencies: list[float],
    errors: list[str],
    rest: int = 0,
    peak: int = 0,
    cpu: CpuUse | None = None,
) -> dict:
    p50, p99 = percentiles(latencies)
    return {
        "row": label,
        "per_s": len(latencies) / seconds,
        "p50": p50,
        "p99": p99,
        "errors": errors,
        "rest_mib": rest / MIB,
        "peak_mib": peak / MIB,
        "cpu_ms": cpu.per_call_ms(len(latencies)) if cpu else {},
    }


def fresh_urls(origin: HTTPSOrigin, hosts: list[str], paths: list[str], calls: int) -> list[str]:
    """URLs no earlier row fetched (a new query each), so every call is a new retrieval."""
    urls = urls_for(origin, hosts, paths, calls)
    return [f"{url}&r={uuid.uuid4().hex[:6]}" for url in urls]


def store_row(store: str, label: str, env_base: dict, urls: list[str], args, extra) -> dict:
    """One row against a fresh home (SQLite) or a fresh private schema (PostgreSQL)."""
    with tempfile.TemporaryDirectory() as home:
        env = {**env_base, "SOSOAPI_HOME": home}
        if store == "sqlite":
            return {**serve_row(f"{store}, {label}", env, urls, args, extra), "store": store}
        with private_schema(args.postgres, "bench") as url:
            env = {**env, "SOSOAPI_DATABASE_URL": url}
            return {**serve_row(f"{store}, {label}", env, urls, args, extra), "store": store}


@contextlib.contextmanager
def checkout(revision: str) -> Iterator[Path]:
    """The `src` folder of `revision`, checked out in a temporary git worktree."""
    with tempfile.TemporaryDirectory(prefix="sosoapi-baseline-") as folder:
        tree = Path(folder) / "tree"
        git = ["git", "-C", str(ROOT)]
        subprocess.run([*git, "worktree", "add", "--detach", str(tree), revision], check=True)
        try:
            yield tree / "src"
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(tree)], check=False)


def main() -> None:
    args = arguments()
    pages = page_routes(args.pages)
    routes = {path: Route(body, content_type="text/html") for path, body in pages.items()}
    hosts = hostnames(args.hosts)
    rows = []
    with HTTPSOrigin(routes, hostnames=(*hosts, "127.0.0.1")) as origin:
        env_base = {
            **many_hosts_env(origin, hosts),
            "SOSOAPI_ROBOTS_CACHE_SECONDS": "3600",
        }
        paths = list(routes)
        if args.cpu_rounds:
            cpu_rounds(args, origin, hosts, paths, env_base)
            return
        with ProcessPoolExecutor(default_workers()) as pool:
            rows.append(floor_row(origin, urls_for(origin, hosts, paths, args.calls), args, pool))
        stores = args.stores.split(",")
        layouts = [("1 process", ())]
        if args.workers:
            layouts.append((f"{args.workers} processes", ("--workers", str(args.workers))))
        for store in stores:
            for label, extra in layouts:
                urls = fresh_urls(origin, hosts, paths, args.calls)
                rows.append(store_row(store, label, env_base, urls, args, extra))
        bases: dict[str, float] = {}
        base_cpu: dict[str, dict] = {}
        if args.baseline:
            with checkout(args.baseline) as source:
                env = {**env_base, "PYTHONPATH": str(source)}
                label = f"1 process at {args.baseline}"
                for store in stores:
                    urls = fresh_urls(origin, hosts, paths, args.calls)
                    rows.append(store_row(store, label, env, urls, args, ()))
                    bases[store] = rows[-1]["per_s"]
                    base_cpu[store] = rows[-1]["cpu_ms"]
    floor = rows[0]["per_s"]
    print(
        f"load: {args.clients} MCP clients, {args.calls} retrievals per row, "
        f"{args.hosts} host names, {len(pages)} real pages; cores={default_workers()}"
    )
    print(
        f"{'row':38} {'per s':>7} {'/floor':>7} {'/base':>6} {'/sqlbase':>8} {'p50 ms':>8} "
        f"{'p99 ms':>8} "
        f"{'err':>4} {'rest MiB':>9} {'peak MiB':>9}   CPU ms/call: bench server parse db"
    )
    for r in rows:
        base = bases.get(r.get("store"))
        versus = f"{r['per_s'] / base:6.2f}" if base else f"{'':6}"
        sqlbase = bases.get("sqlite")
        versus += f" {r['per_s'] / sqlbase:8.2f}" if sqlbase else f" {'':8}"
        bench, server, parse, db = (
            _ms(r["cpu_ms"].get(name)) for name in ("bench", "server", "parse", "db")
        )
        print(
            f"{r['row']:38} {r['per_s']:7.1f} {r['per_s'] / floor:7.2f} {versus} "
            f"{r['p50']:8.1f} {r['p99']:8.1f} {len(r['errors']):4d} {r['rest_mib']:9.1f} "
            f"{r['peak_mib']:9.1f}   {bench:>17} {server:>6} {parse:>5} {db:>4}"
        )
    for r in rows:
        for error in r["errors"]:
            print(f"  {r['row']}: {error}")
    print_cpu_against_baseline(rows, base_cpu)


# A row's whole tree: the server process, the parsing processes and, on PostgreSQL, the
# database's backends; cpu_rounds compares the server alone and the tree.
TREE = ("server", "parse", "db")
PARTS = (("server", ("server",)), ("tree", TREE))


def cpu_rounds(
    args: argparse.Namespace, origin: HTTPSOrigin, hosts: list[str], paths: list[str], env: dict
) -> None:
    """This checkout's and the baseline's one-process rows, alternated round by round (the
    baseline first in every other round), so drift in the machine's load falls on both;
    then each store's median server and whole-tree CPU per call, and their ratio."""
    seen: dict[tuple[str, str], list[dict]] = {}
    with checkout(args.baseline) as source:
        envs = {"now": env, "base": {**env, "PYTHONPATH": str(source)}}
        for round_number in range(args.cpu_rounds):
            order = ("now", "base") if round_number % 2 == 0 else ("base", "now")
            for store in args.stores.split(","):
                for which in order:
                    urls = fresh_urls(origin, hosts, paths, args.calls)
                    found = store_row(store, which, envs[which], urls, args, ())
                    seen.setdefault((store, which), []).append(found["cpu_ms"])
                    cpu, errors = found["cpu_ms"], len(found["errors"])
                    print(f"round {round_number + 1} {store} {which}: {cpu} errors={errors}")
    for store in args.stores.split(","):
        sums = {
            which: {
                part: [sum(c.get(k) or 0.0 for k in keys) for c in seen[(store, which)]]
                for part, keys in PARTS
            }
            for which in ("now", "base")
        }
        now, base = (
            {part: statistics.median(values) for part, values in sums[which].items()}
            for which in ("now", "base")
        )
        paired = {
            part: statistics.median(
                n / b for n, b in zip(sums["now"][part], sums["base"][part], strict=True)
            )
            for part, _ in PARTS
        }
        print(
            f"{store}: median of {args.cpu_rounds} rounds, {args.calls} calls each: server "
            f"{now['server']:.2f} ms/call against {base['server']:.2f} at {args.baseline} "
            f"({now['server'] / base['server']:.2f}x); whole tree {now['tree']:.2f} against "
            f"{base['tree']:.2f} ({now['tree'] / base['tree']:.2f}x); median of the rounds' "
            f"own ratios (each round's two rows run back to back): server "
            f"{paired['server']:.2f}x, whole tree {paired['tree']:.2f}x"
        )


def print_cpu_against_baseline(rows: list[dict], base_cpu: dict[str, dict]) -> None:
    """Each one-process row's CPU per call against the baseline's on its store: the server
    process alone (parsing excluded: it runs in the parse pool) and the whole tree (server,
    parsing and, on PostgreSQL, the database)."""
    for r in rows:
        base = base_cpu.get(r.get("store"))
        if not base or not r["row"].endswith("1 process"):
            continue
        cpu = r["cpu_ms"]
        tree, base_tree = (sum(c.get(k) or 0.0 for k in TREE) for c in (cpu, base))
        server = cpu["server"] / base["server"]
        print(
            f"{r['row']}: server {cpu['server']:.2f} ms/call = {server:.2f}x "
            f"the baseline's {base['server']:.2f}; whole tree {tree:.2f} ms/call = "
            f"{tree / base_tree:.2f}x the baseline's {base_tree:.2f}"
        )


def _below_children(process: psutil.Process) -> list[psutil.Process]:
    """The parsing processes: below the server processes (`--workers`) or the forkserver,
    both direct children of the process started."""
    direct = {child.pid for child in process.children()}
    return [p for p in process.children(recursive=True) if p.pid not in direct]


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


if __name__ == "__main__":
    main()
