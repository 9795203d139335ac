"""Floods of heavy calls from one viewer (issue 36): server memory, its return, and another
workspace's quick reads.

A real `sosoapi serve` (SQLite, one process). Workspace A holds a sealed corpus of
`--revisions` evidence revisions of `--chars` characters each (one captured page of the
same size behind each, so its export is a real archive); workspace B one small evidence.
Seeded once through the store, then copied for each row. Per row:

1. quotes: A's viewer sends `--quotes` concurrent `evidence_quote` calls over the HTTP API
   against the whole corpus (an exact quote from its last revision); meanwhile B's
   `evidence_get` is timed in a loop. Server RSS at rest, at its peak, and once idle after.
2. exports: A's viewer sends `--exports` concurrent `GET /research-api/corpora/export`
   (each body read to its end); B timed the same; peak RSS and the peak of the server's
   temporary folder (its TMPDIR) against one archive's size; RSS once idle after.

Rows: `--baseline` (the commit issue 36 was filed against), `--before-trim` (issue 36's
items 1-4 without giving memory back) and this tree, each checked out in a temporary git
worktree (this tree runs from its own `src`).

    .venv/bin/python bench/floods.py [--revisions 55] [--chars 500000] [--quotes 64]
        [--exports 44] [--baseline 00f031f] [--before-trim REV] [--only-this-tree]
        [--floods quotes,exports] [--schedstat 8]

`--schedstat K` also prints, per row and flood, B's K slowest requests with what each of
the server's threads (and its child processes) did meanwhile (`bench/schedstat.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent

from load import checkout  # noqa: E402
from schedstat import Sched  # noqa: E402
from sosoapi.application import Application  # noqa: E402
from sosoapi.auth.admin import Admin  # noqa: E402
from sosoapi.config import Settings  # noqa: E402
from sosoapi.research.evidence.identity import canonical_json, evidence_write  # noqa: E402
from sosoapi.research.retrieval.draft import Draft  # noqa: E402
from sosoapi.store.evidence_repo import record_revision  # noqa: E402
from sosoapi.store.records import CaptureWrite  # noqa: E402
from sosoapi.testing.memory import MIB  # noqa: E402
from sosoapi.testing.processes import SOSOAPI, ServeProcess  # noqa: E402

API = "/research-api/"
BASELINE = "00f031f"
IDLE_CPU = 2.0  # % of one core: the server has finished its work


def prose(seed: int, chars: int) -> str:
    rng = random.Random(seed)
    words = " ".join(rng.randbytes(4).hex() for _ in range(chars // 9 + 1))
    return words[:chars]


def _write(app: Application, ws: str, n: int, text: str, now: datetime) -> str:
    """One evidence revision of `text` (its receipt keeps 20,000 characters) with the page
    it was read from as its capture."""
    url = f"https://bench.example/{ws[:8]}/{n}"
    body = f"<html><head><title>Page {n}</title></head><body><p>{text}</p></body></html>"
    draft = Draft(kind="url_text", retrieved_at=now, source_url=url, mime_type="text/html")
    draft.text, draft.whole_text = text[:20_000], text
    draft.title, draft.content_kind = f"Page {n}", "document_text"
    meta = canonical_json({
        "request": {"method": "GET", "url": url, "headers": [["Host", "bench.example"]]},
        "credentials": "none",
        "response": {"http_version": "HTTP/1.1", "status": 200, "reason": "OK",
                     "headers": [["Content-Type", "text/html"]], "body_truncated": False},
    })  # fmt: skip
    capture = CaptureWrite("response", url, now, "192.0.2.1", 200, meta, body.encode())
    item = evidence_write(ws, draft.finish(now), (capture,))
    assert item is not None
    with app.store.db.write() as conn:
        return record_revision(app.store.db, conn, item, now)[0]


def _cli(env: dict[str, str], *args: str) -> dict:
    done = subprocess.run([SOSOAPI, *args, "--json"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    parsed: dict = json.loads(done.stdout)
    return parsed


def seed(home: Path, args: argparse.Namespace) -> dict[str, str]:
    env = {"SOSOAPI_HOME": str(home), "SOSOAPI_LOG_LEVEL": "WARNING"}
    app = Application(Settings.from_env(env))
    now = datetime.now(UTC)
    admin = Admin(app.store.auth)
    workspace, owner = admin.init_local(now)
    viewer = admin.mint(admin.create_member(workspace.id, "viewer", "viewer", now), now).token
    other = app.store.auth.create_workspace("other", now).id
    other_token = admin.mint(admin.create_member(other, "b", "editor", now), now).token
    ids = [_write(app, workspace.id, n, prose(n, args.chars), now) for n in range(args.revisions)]
    small = _write(app, other, 0, prose(-1, 2_000), now)
    app.store.close()
    env = {**env, "SOSOAPI_TOKEN": owner.token}
    project = _cli(env, "projects", "create", "flood")["project"]["id"]
    _cli(env, "projects", "add-sources", project, *[f"--evidence={e}" for e in ids])
    corpus = _cli(env, "corpora", "seal", project)["snapshot"]["id"]
    quote = " ".join(prose(args.revisions - 1, args.chars)[-2_000:].split()[5:15])
    return {"a": workspace.id, "viewer": viewer, "b": other, "b_token": other_token,
            "b_evidence": small, "corpus": corpus, "quote": quote}  # fmt: skip


class Watch:
    """RSS of the server process and size of its temporary folder, sampled every 20 ms."""

    def __init__(self, pid: int, tmp: Path) -> None:
        self.process, self.tmp = psutil.Process(pid), tmp
        self.rss_peak = self.tmp_peak = self.children_peak = 0

    def rss(self) -> int:
        return int(self.process.memory_info().rss)

    def children(self) -> int:
        """RSS of the server's child processes (parsing workers, their forkserver, export
        processes), added up: shared pages count in each."""
        total = 0
        for child in self.process.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                total += child.memory_info().rss
        return total

    async def run(self) -> None:
        while True:
            self.rss_peak = max(self.rss_peak, self.rss())
            self.children_peak = max(self.children_peak, self.children())
            used = sum(p.stat().st_size for p in self.tmp.rglob("*") if p.is_file())
            self.tmp_peak = max(self.tmp_peak, used)
            await asyncio.sleep(0.02)

    def settled(self) -> int:
        """RSS once the server is idle (its CPU under IDLE_CPU % over a second), then 2 s."""
        deadline = time.monotonic() + 300
        while self.process.cpu_percent(1.0) > IDLE_CPU and time.monotonic() < deadline:
            pass
        time.sleep(2)
        return self.rss()


async def flood(
    server: ServeProcess, seeded: dict, watch: Watch, kind: str, count: int, sched: Sched | None
) -> dict:
    viewer = {"Authorization": f"Bearer {seeded['viewer']}"}
    b = {"Authorization": f"Bearer {seeded['b_token']}"}
    limits = httpx.Limits(max_connections=count + 8)
    async with httpx.AsyncClient(base_url=server.base, timeout=3600, limits=limits) as http:

        async def one() -> int:
            if kind == "quotes":
                body = {"workspace_id": seeded["a"], "corpus_id": seeded["corpus"],
                        "quote": seeded["quote"]}  # fmt: skip
                answer = await http.post(API + "evidence/quote", json=body, headers=viewer)
                return answer.status_code
            query = {"workspace_id": seeded["a"], "corpus_id": seeded["corpus"]}
            async with http.stream("GET", API + "corpora/export", params=query,
                                   headers=viewer) as answer:  # fmt: skip
                async for _ in answer.aiter_raw():
                    pass
                return answer.status_code

        async def quick(traced: Sched | None = None) -> float:
            body = {"workspace_id": seeded["b"], "evidence_id": seeded["b_evidence"]}
            before = traced.snapshot() if traced else None
            start = time.perf_counter()
            answer = await http.post(API + "evidence/get", json=body, headers=b)
            took = time.perf_counter() - start
            assert answer.status_code == 200, answer.text[:200]
            if traced and before is not None:
                traced.record(before, traced.snapshot(), took)
            return took

        alone = [await quick() for _ in range(10)]
        watch.rss_peak, watch.tmp_peak, watch.children_peak = watch.rss(), 0, watch.children()
        sampler = asyncio.create_task(watch.run())
        started = time.perf_counter()
        if sched is not None:
            sched.began = time.monotonic()
        burst = asyncio.gather(*(one() for _ in range(count)))
        during: list[float] = []
        while not burst.done():
            during.append(await quick(sched))
        statuses = await burst
        seconds = time.perf_counter() - started
        sampler.cancel()
    during.sort()
    return {"alone_p50": statistics.median(alone), "during_p50": statistics.median(during),
            "during_p99": during[int(len(during) * 0.99)], "during_max": during[-1],
            "seconds": seconds, "ok": statuses.count(200), "rss_peak": watch.rss_peak,
            "tmp_peak": watch.tmp_peak, "children_peak": watch.children_peak,
            "over": sum(d >= 0.5 for d in during), "samples": len(during),
            "load": os.getloadavg()[0]}  # fmt: skip


def row(label: str, src: Path | None, home: Path, seeded: dict, args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="sosoapi-flood-") as folder:
        copy, tmp = Path(folder) / "home", Path(folder) / "tmp"
        shutil.copytree(home, copy)
        tmp.mkdir()
        env = {"SOSOAPI_HOME": str(copy), "SOSOAPI_LOG_LEVEL": "WARNING", "TMPDIR": str(tmp)}
        if src is not None:
            env["PYTHONPATH"] = str(src)
        with ServeProcess(env) as server:
            assert server.proc is not None
            watch = Watch(server.proc.pid, tmp)
            found: dict = {"row": label, "start": watch.settled()}
            for kind in args.floods:
                count = args.quotes if kind == "quotes" else args.exports
                sched = Sched(server.proc.pid, args.schedstat) if args.schedstat else None
                found[kind] = asyncio.run(flood(server, seeded, watch, kind, count, sched))
                found[f"after_{kind}"] = watch.settled()
                if sched is not None:
                    sched.report(f"{label}, {count} {kind}")
        found["archive"] = _archive_size(home, seeded)
    return found


def _archive_size(home: Path, seeded: dict) -> int:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "c.wacz"
        env = {"SOSOAPI_HOME": str(home), "SOSOAPI_TOKEN": seeded["viewer"],
               "SOSOAPI_LOG_LEVEL": "WARNING"}  # fmt: skip
        _cli(env, "corpora", "export", seeded["corpus"], "--workspace", seeded["a"], "-o",
             str(target))  # fmt: skip
        return target.stat().st_size


def report(rows: list[dict], args: argparse.Namespace) -> None:
    mb = MIB
    print(f"\nA's viewer floods a corpus of {args.revisions} x {args.chars:,} characters; B's "
          "evidence_get timed meanwhile (SQLite, one process)")  # fmt: skip
    print(
        "| row | flood | calls 200 | flood s | RSS start MB | RSS peak MB | growth MB | "
        "RSS after MB | after - start MB | B p50 alone ms | B p50 ms | B max ms |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        for kind in args.floods:
            f, after = r[kind], r[f"after_{kind}"]
            count = args.quotes if kind == "quotes" else args.exports
            print(f"| {r['row']} | {count} {kind} | {f['ok']} | {f['seconds']:.1f} | "
                  f"{r['start'] / mb:.0f} | {f['rss_peak'] / mb:.0f} | "
                  f"{(f['rss_peak'] - r['start']) / mb:+.0f} | {after / mb:.0f} | "
                  f"{(after - r['start']) / mb:+.0f} | {f['alone_p50'] * 1000:.1f} | "
                  f"{f['during_p50'] * 1000:.1f} | {f['during_max'] * 1000:.0f} |")  # fmt: skip
    print("\n| row | flood | B samples | B p99 ms | B >= 0.5 s | children peak MB | load |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        for kind in args.floods:
            f = r[kind]
            print(f"| {r['row']} | {kind} | {f['samples']} | {f['during_p99'] * 1000:.0f} | "
                  f"{f['over']} | {f['children_peak'] / mb:.0f} | {f['load']:.1f} |")  # fmt: skip
    print("\n| row | archive MB | peak TMPDIR MB during the export flood | / archive |")
    print("|---|---:|---:|---:|")
    for r in rows if "exports" in args.floods else ():
        peak = r["exports"]["tmp_peak"]
        print(f"| {r['row']} | {r['archive'] / mb:.1f} | {peak / mb:.1f} | "
              f"{peak / r['archive']:.2f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--revisions", type=int, default=55)
    parser.add_argument("--chars", type=int, default=500_000)
    parser.add_argument("--quotes", type=int, default=64)
    parser.add_argument("--exports", type=int, default=44)
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--before-trim", default="")
    parser.add_argument("--only-this-tree", action="store_true", help="no peer rows")
    parser.add_argument("--floods", default="quotes,exports", help="which, in this order")
    parser.add_argument("--schedstat", type=int, default=0, help="B's K slowest, per thread")
    args = parser.parse_args()
    args.floods = [k for k in args.floods.split(",") if k in ("quotes", "exports")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="sosoapi-flood-seed-") as folder:
        home = Path(folder)
        seeded = seed(home, args)
        peers = [] if args.only_this_tree else [(f"baseline {args.baseline}", args.baseline)]
        if args.before_trim and not args.only_this_tree:
            peers.append((f"items 1-4, no trim ({args.before_trim})", args.before_trim))
        for label, revision in peers:
            with checkout(revision) as src:
                rows.append(row(label, src, home, seeded, args))
                print(rows[-1], flush=True)
        rows.append(row("this tree", None, home, seeded, args))
    report(rows, args)


if __name__ == "__main__":
    main()
