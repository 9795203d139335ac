"""What a server's first parse waits for: the parsing pool's forkserver and its preload.

A server starts the forkserver at its first parse or export (research/offload.py), not at
start, so a fresh server's first parse waits for the preload (the readers, trafilatura,
the export writers, the store). Each run is a fresh process with a pool of one worker:

- `cold`: the first parse right after the pool starts (what a server's first parse
  waits), then a second one (the worker is kept: a pipe trip),
- `warm`: the forkserver started with the pool (`Offload.warm`, what a one-shot
  `sosoapi retrieve` does) and the first parse `--after` seconds later.

The parse is `os.getpid` (the trip alone). Prints the median wall time of each, and the
forkserver's CPU (user + system): the preload, paid once per server that parses.

    .venv/bin/python bench/first_parse.py --n 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import anyio
import psutil

from sosoapi.research.offload import Offload


async def _child(warm: bool, after: float) -> dict[str, float]:
    pool = Offload(1)
    pool.start()
    if warm:
        pool.warm()
        await anyio.sleep(after)
    try:
        began = time.perf_counter()
        await pool.run(os.getpid)
        first = time.perf_counter() - began
        began = time.perf_counter()
        await pool.run(os.getpid)
        second = time.perf_counter() - began
        servers = [p for p in psutil.Process().children() if "forkserver" in " ".join(p.cmdline())]
        preload = sum(p.cpu_times().user + p.cpu_times().system for p in servers)
    finally:
        pool.close()
    return {"first": first, "second": second, "forkserver_cpu": preload}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5, help="fresh processes per case")
    parser.add_argument("--after", type=float, default=3.0, help="warm: seconds before a parse")
    parser.add_argument("--child", choices=["cold", "warm"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = anyio.run(_child, args.child == "warm", args.after)
        print(json.dumps(result))
        return 0
    runs: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    for _ in range(args.n):
        for case, found in runs.items():
            command = [sys.executable, __file__, "--child", case, "--after", str(args.after)]
            done = subprocess.run(command, check=True, capture_output=True, text=True)
            found.append(json.loads(done.stdout.splitlines()[-1]))
    print(f"{'case':6} {'first parse ms':>15} {'next parse ms':>14} {'forkserver CPU ms':>18}")
    for case, found in runs.items():
        first, second, cpu = (
            statistics.median(r[key] for r in found) * 1000
            for key in ("first", "second", "forkserver_cpu")
        )
        print(f"{case:6} {first:15.0f} {second:14.1f} {cpu:18.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
