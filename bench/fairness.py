"""Read-tool fairness (issue 23): another workspace's quick search under a burst of diffs.

A real `sosoapi serve` (SQLite, one process). Workspace A holds one evidence with two
revisions of about 4,000 characters each; workspace B a small one. B's search is timed
alone (`--n` calls in sequence), then again while A sends `--burst` concurrent
`evidence_diff` calls over the HTTP API: every B search that starts before A's last diff
answers is counted. In the same run, the same against `--baseline` (default: main before
issue 23's scheduler), checked out in a temporary git worktree and run with this venv.

    .venv/bin/python bench/fairness.py [--burst 45] [--n 20] [--baseline REV] [--slots 2,4]

`--slots` adds a row of this tree per SOSOAPI_HEAVY_READ_SLOTS value (the pool's size).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent

from load import checkout  # noqa: E402
from sosoapi.testing.origin import HTTPSOrigin, Route  # noqa: E402
from sosoapi.testing.pages import article_html as html  # noqa: E402
from sosoapi.testing.processes import ServeProcess, cli  # noqa: E402

API = "/research-api/evidence/"
BASELINE = "14710bb"  # main the day issue 23's fairness half was taken up


def sentences(word: str, changed: bool, count: int) -> list[str]:
    """Prose of about 80 characters a sentence; the second revision changes every fifth."""
    return [
        f"Sentence {n} of the {word} survey reports {'new' if changed and n % 5 == 0 else 'old'} "
        f"readings of ice thickness along the northern ridge in the late spring."
        for n in range(count)
    ]


async def retrieve(http: httpx.AsyncClient, token: str, ws: str, url: str) -> str:
    body = {"url": url, "kind": "url_text", "workspace_id": ws, "mutation_id": str(uuid.uuid4())}
    answer = await http.post(API + "retrieve", json=body, headers=_auth(token))
    answer.raise_for_status()
    return str(answer.json()["retrieval"]["evidence"]["evidence_id"])


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def search(http: httpx.AsyncClient, token: str, ws: str) -> float:
    start = time.perf_counter()
    answer = await http.post(
        API + "search", json={"workspace_id": ws, "query": "harbour ridge"}, headers=_auth(token)
    )
    assert answer.status_code == 200 and answer.json()["results"], answer.text[:300]
    return time.perf_counter() - start


async def measure(server: ServeProcess, env: dict, origin: HTTPSOrigin, args) -> dict:
    a_ws, a_token = env["WORKSPACE_ID"], env["SOSOAPI_TOKEN"]
    b_ws = json.loads(cli(["workspaces", "create", "other", "--json"], env).stdout)["id"]
    minted = cli(["tokens", "create", "--workspace", b_ws, "--role", "editor", "--json"], env)
    b_token = json.loads(minted.stdout)["token"]
    limits = httpx.Limits(max_connections=args.burst + 8)
    async with httpx.AsyncClient(base_url=server.base, timeout=600, limits=limits) as http:
        path = f"/a-{uuid.uuid4().hex[:6]}"
        for changed in (False, True):  # html() repeats the paragraphs thrice: ~4,000 chars
            origin.routes[path] = Route(html("en", "A", sentences("glacier", changed, 16)))
            a_evidence = await retrieve(http, a_token, a_ws, origin.url(path))
        origin.routes["/b"] = Route(html("en", "B", sentences("harbour", False, 3)))
        await retrieve(http, b_token, b_ws, origin.url("/b"))
        alone = [await search(http, b_token, b_ws) for _ in range(args.n)]
        diff = {"workspace_id": a_ws, "evidence_id": a_evidence, "from_revision": 1}

        async def one_diff() -> int:
            answer = await http.post(API + "diff", json=diff, headers=_auth(a_token))
            return answer.status_code

        start = time.perf_counter()
        burst = asyncio.gather(*(one_diff() for _ in range(args.burst)))
        await asyncio.sleep(0.2)  # the burst is in the server
        during: list[float] = []
        while not burst.done():
            during.append(await search(http, b_token, b_ws))
        statuses = await burst
        seconds = time.perf_counter() - start
    return {
        "alone_p50": statistics.median(alone),
        "during_p50": statistics.median(during),
        "during_max": max(during),
        "searches": len(during),
        "burst_s": seconds,
        "diffs_ok": statuses.count(200),
    }


def row(label: str, env: dict, origin: HTTPSOrigin, args) -> dict:
    with tempfile.TemporaryDirectory() as home:
        env = {**env, "SOSOAPI_HOME": home}
        created = json.loads(cli(["init", "--json"], env).stdout)
        env = {**env, "WORKSPACE_ID": created["workspace_id"], "SOSOAPI_TOKEN": created["token"]}
        with ServeProcess(env) as server:
            return {"row": label, **asyncio.run(measure(server, env, origin, args))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--burst", type=int, default=45)
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--slots", default="2", help="SOSOAPI_HEAVY_READ_SLOTS per row")
    args = parser.parse_args()
    rows = []
    with HTTPSOrigin({}) as origin:
        env = {"SOSOAPI_LOG_LEVEL": "WARNING", **origin.egress_env()}
        with checkout(args.baseline) as source:
            rows.append(
                row(f"baseline {args.baseline}", {**env, "PYTHONPATH": str(source)}, origin, args)
            )
        for slots in args.slots.split(","):
            pool = {**env, "SOSOAPI_HEAVY_READ_SLOTS": slots}
            rows.append(row(f"this tree, {slots} heavy slots", pool, origin, args))
    print(f"B's search under {args.burst} concurrent diffs from A (SQLite, one process)")
    print("| row | B alone p50 ms | B during burst p50 ms | max ms | B searches | burst s | 200s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['row']} | {r['alone_p50'] * 1000:.1f} | {r['during_p50'] * 1000:.1f} | "
            f"{r['during_max'] * 1000:.1f} | {r['searches']} | {r['burst_s']:.1f} | "
            f"{r['diffs_ok']}/{args.burst} |"
        )


if __name__ == "__main__":
    main()
