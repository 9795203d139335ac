"""Memory over many retrievals: does anything in `sosoapi serve` grow without bound?

One `sosoapi serve` process on SQLite (the embedded default), 16 MCP clients over
streamable HTTP retrieving `--retrievals` distinct URLs (every one a new evidence and a
new receipt) spread over `--hosts` host names of one loopback HTTPS origin, politeness
on. The server's whole process tree RSS is sampled at rest and after every `--step`
retrievals; the verdict compares the last sample with the one after the first step
(warm caches, pools started), since only growth past warm-up can be unbounded.

    .venv/bin/python bench/memory.py [--retrievals 10000] [--step 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from load import hostnames, many_hosts_env, mcp_load, urls_for  # noqa: E402
from sosoapi.testing.memory import MIB, PeakRSS  # noqa: E402
from sosoapi.testing.origin import HTTPSOrigin, Route  # noqa: E402
from sosoapi.testing.pages import pages_dir, real_pages  # noqa: E402
from sosoapi.testing.processes import ServeProcess, cli  # noqa: E402

GROWTH_ALLOWED = 0.10  # past warm-up, more than 10% more memory is a leak worth chasing


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--retrievals", type=int, default=10_000)
    parser.add_argument("--step", type=int, default=1_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--hosts", type=int, default=64)
    return parser.parse_args()


def main() -> int:
    args = arguments()
    routes = {f"/{page.name}": Route(page.html) for page in real_pages(pages_dir(ROOT))}
    hosts = hostnames(args.hosts)
    with HTTPSOrigin(routes, hostnames=(*hosts, "127.0.0.1")) as origin:
        all_urls = urls_for(origin, hosts, list(routes), args.retrievals)
        all_urls = [f"{url}&r={uuid.uuid4().hex[:8]}" for url in all_urls]
        with tempfile.TemporaryDirectory() as home:
            env = {**many_hosts_env(origin, hosts), "SOSOAPI_HOME": home}
            created = json.loads(cli(["init", "--json"], env).stdout)
            with ServeProcess(env, log=Path(home) / "serve.log") as server:
                assert server.proc is not None
                time.sleep(2)
                memory = PeakRSS(server.proc.pid, tree=True)
                samples = [(0, memory.rss(), 0.0, 0)]
                started = time.perf_counter()
                for done in range(args.step, args.retrievals + 1, args.step):
                    urls = all_urls[done - args.step : done]
                    _, _, errors = asyncio.run(
                        mcp_load(
                            server.base,
                            created["token"],
                            created["workspace_id"],
                            urls,
                            args.clients,
                        )
                    )
                    samples.append((done, memory.rss(), time.perf_counter() - started, errors))
                    print(f"{done:7d} retrievals  {samples[-1][1] / MIB:8.1f} MiB", flush=True)
    return report(samples)


def report(samples: list[tuple[int, int, float, int]]) -> int:
    print(f"{'retrievals':>10} {'RSS MiB':>9} {'elapsed s':>10} {'errors':>7}")
    for done, rss, elapsed, errors in samples:
        print(f"{done:10d} {rss / MIB:9.1f} {elapsed:10.0f} {errors:7d}")
    warm, last = samples[1][1], samples[-1][1]
    growth = (last - warm) / warm
    verdict = "bounded" if growth <= GROWTH_ALLOWED else "GROWING"
    print(
        f"after warm-up ({samples[1][0]} retrievals) {warm / MIB:.1f} MiB, at the end "
        f"{last / MIB:.1f} MiB: {growth:+.1%} ({verdict}; allowed {GROWTH_ALLOWED:.0%})"
    )
    return 0 if growth <= GROWTH_ALLOWED else 1


if __name__ == "__main__":
    sys.exit(main())
