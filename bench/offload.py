"""What a bounded parse costs: the parsing pool (research/offload.py, a killable worker
under a deadline and a memory cap) against the stdlib ProcessPoolExecutor it replaced, on
the same forkserver with the same preload, in one run.

    .venv/bin/python bench/offload.py [--parses 400] [--workers 2] [--rounds 3]

Each round sends `--parses` jobs from 8 concurrent callers to each pool (the order
alternates round by round): first a job that does nothing (`os.getpid`, the trip itself),
then a real page's read (`extract.page.read_page`, one of the 4 pages of tests/data). It
prints the median per job of the wall time and of this process's CPU (pickling, pipes,
threads: the server's share of a parse), and the workers' CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent

from sosoapi.extract.page import read_page  # noqa: E402
from sosoapi.research.offload import PRELOAD, Offload  # noqa: E402
from sosoapi.testing.pages import pages_dir, real_pages  # noqa: E402

Run = Callable[..., Any]


def _stdlib(workers: int) -> tuple[Run, Callable[[], None]]:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)

    async def run(fn: Any, *args: Any, **kwargs: Any) -> Any:
        call = functools.partial(fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(pool, call)

    return run, lambda: pool.shutdown(wait=True)


def _bounded(workers: int) -> tuple[Run, Callable[[], None]]:
    offload = Offload(workers)
    offload.start()
    return offload.run, offload.close


def _children_cpu() -> float:
    return sum(sum(child.cpu_times()[:2]) for child in psutil.Process().children(recursive=True))


async def _measure(run: Run, jobs: list[tuple[Any, tuple[Any, ...], dict[str, Any]]]) -> dict:
    queue = list(jobs)

    async def caller() -> None:
        while queue:
            fn, args, kwargs = queue.pop()
            await run(fn, *args, **kwargs)

    for fn, args, kwargs in jobs[:16]:  # warm: workers started, pages seen once
        await run(fn, *args, **kwargs)
    me, children, wall = psutil.Process().cpu_times(), _children_cpu(), time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(8)))
    wall = time.perf_counter() - wall
    after = psutil.Process().cpu_times()
    n = len(jobs)
    return {
        "wall": wall / n * 1000,
        "caller": (after.user + after.system - me.user - me.system) / n * 1000,
        "workers": (_children_cpu() - children) / n * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--parses", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pages = real_pages(pages_dir(ROOT))
    kinds = {
        "trip": [(os.getpid, (), {})] * args.parses,
        "page": [
            (
                read_page,
                (pages[i % len(pages)].html,),
                {"media_type": "text/html", "charset": None, "url": pages[i % len(pages)].url,
                 "content_language": None},
            )
            for i in range(args.parses)
        ],
    }  # fmt: skip
    figures: dict[tuple[str, str], list[dict]] = {}
    for round_number in range(args.rounds):
        order = [("stdlib", _stdlib), ("bounded", _bounded)]
        for name, make in order[:: 1 if round_number % 2 == 0 else -1]:
            run, close = make(args.workers)
            try:
                for kind, jobs in kinds.items():
                    figures.setdefault((kind, name), []).append(asyncio.run(_measure(run, jobs)))
            finally:
                close()
    print(f"median of {args.rounds} rounds, {args.parses} jobs each, {args.workers} workers")
    print(f"{'job':6} {'pool':8} {'wall ms':>8} {'caller CPU ms':>14} {'workers CPU ms':>15}")
    for (kind, name), rows in sorted(figures.items()):
        wall, caller, workers = (statistics.median(r[k] for r in rows) for k in rows[0])
        print(f"{kind:6} {name:8} {wall:8.3f} {caller:14.3f} {workers:15.3f}")


if __name__ == "__main__":
    main()
