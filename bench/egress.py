"""Egress gate benchmark: overhead against a plain httpx GET, and memory under 1 GiB bodies.

Run from the project root:  .venv/bin/python bench/egress.py [--requests 300] [--rounds 5]

1. Overhead: the same loopback HTTPS 100 KB page fetched sequentially by a plain
   `httpx.AsyncClient` (keep-alive, certificate verified) and by `Egress.fetch` (policy,
   pinned resolution, politeness bookkeeping, bounded read), rounds interleaved; the ratio
   is gate time / httpx time per request (median of rounds). Target < 1.15.
2. Memory: 50 concurrent fetches of a 1 GiB body (the origin streams 1 GiB of HTML and
   announces it in Content-Length) and of a 1 GiB gzip bomb, with the default 5 MiB cap.
   Peak RSS of this process above its start, sampled every 2 ms. The origin runs in a
   separate process so only the client side is measured. Target growth < 150 MiB.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import multiprocessing
import ssl
import statistics
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent

from sosoapi.config import egress_from_env  # noqa: E402
from sosoapi.egress.gate import Egress  # noqa: E402
from sosoapi.egress.settings import EgressSettings  # noqa: E402
from sosoapi.testing.memory import PeakRSS  # noqa: E402

HTML = ["text/html", "application/xhtml+xml", "text/plain"]


def page_100kb() -> bytes:
    para = b"<p>" + b"lorem ipsum dolor sit amet " * 36 + b"</p>\n"
    body = b"<html><head><title>bench</title></head><body>\n"
    while len(body) < 100_000:
        body += para
    return body[:99_985] + b"</body></html>"


def serve(queue: multiprocessing.Queue, stop: multiprocessing.Event) -> None:  # type: ignore[type-arg]
    """Child process: run the loopback origin until told to stop."""
    from sosoapi.testing.hostile_routes import encoded_body, endless_body, gzip_zeros
    from sosoapi.testing.origin import HTTPSOrigin, Route

    routes = {
        "/page": Route(page_100kb()),
        "/gib": endless_body(),
        "/bomb": encoded_body(gzip_zeros(), "gzip"),
    }
    names = ("origin.test", "127.0.0.1", *(f"o{i}.test" for i in range(50)))
    with HTTPSOrigin(routes, hostnames=names) as origin:
        queue.put((origin.port, origin.ca_path.read_bytes(), origin.egress_env()))
        stop.wait()


async def overhead(
    port: int, ca_pem: bytes, settings: EgressSettings, requests: int, rounds: int
) -> tuple[float, float, float]:
    context = ssl.create_default_context(cadata=ca_pem.decode("ascii"))
    plain = httpx.AsyncClient(verify=context, trust_env=False)
    gate = Egress(settings)
    plain_url = f"https://127.0.0.1:{port}/page"
    gate_url = f"https://origin.test:{port}/page"
    expected = len(page_100kb())
    for _ in range(20):  # warm both: handshakes, pools, caches
        assert len((await plain.get(plain_url)).content) == expected
        assert len((await gate.fetch(gate_url, accept=HTML)).body) == expected
    plain_times, gate_times = [], []

    async def time_plain() -> None:
        started = time.perf_counter()
        for _ in range(requests):
            response = await plain.get(plain_url)
            assert response.status_code == 200 and len(response.content) == expected
        plain_times.append((time.perf_counter() - started) / requests)

    async def time_gate() -> None:
        started = time.perf_counter()
        for _ in range(requests):
            outcome = await gate.fetch(gate_url, accept=HTML)
            assert outcome.reason is None and len(outcome.body) == expected
        gate_times.append((time.perf_counter() - started) / requests)

    for round_number in range(rounds):  # alternate who goes first: drift hits both
        first, second = (time_plain, time_gate) if round_number % 2 else (time_gate, time_plain)
        await first()
        await second()
    await plain.aclose()
    await gate.aclose()
    ratios = [g / p for g, p in zip(gate_times, plain_times, strict=True)]
    return statistics.median(plain_times), statistics.median(gate_times), statistics.median(ratios)


async def memory(settings: EgressSettings, path: str, hosts: int) -> tuple[float, str]:
    """Peak RSS growth for 50 concurrent fetches of `path` spread over `hosts` names.

    Each caller keeps only a summary of its outcome, as the retrieve operation does after
    extraction, so the figure is what the gate holds in flight, not 50 retained bodies.
    """
    names = [f"o{i}.test" for i in range(hosts)]
    pin = next(iter(settings.resolve.values()))
    settings = dataclasses.replace(settings, resolve={name: pin for name in names})
    port = next(rule.port for rule in settings.allow if rule.port is not None)
    gate = Egress(settings)

    async def one(url: str) -> str:
        outcome = await gate.fetch(url, accept=HTML)
        assert len(outcome.body) <= settings.max_body_bytes
        return f"{outcome.reason or 'ok'}{'/truncated' if outcome.truncated else ''}"

    urls = [f"https://{names[i % hosts]}:{port}{path}" for i in range(50)]
    with PeakRSS() as rss:
        summaries = await asyncio.gather(*(one(url) for url in urls))
    await gate.aclose()
    return rss.growth_mib, ",".join(sorted(set(summaries)))


def memory_in_child(
    queue: multiprocessing.Queue,
    settings: EgressSettings,
    path: str,
    hosts: int,  # type: ignore[type-arg]
) -> None:
    """Each memory scenario runs in a fresh process so earlier runs cannot hide growth."""
    queue.put(asyncio.run(memory(settings, path, hosts)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()

    ctx = multiprocessing.get_context("spawn")
    queue, stop = ctx.Queue(), ctx.Event()
    child = ctx.Process(target=serve, args=(queue, stop), daemon=True)
    child.start()
    port, ca_pem, env = queue.get(timeout=60)
    ca_file = Path(tempfile.mkstemp(prefix="sosoapi-bench-ca-", suffix=".pem")[1])
    ca_file.write_bytes(ca_pem)
    try:
        env = {**env, "SOSOAPI_EGRESS_CA_BUNDLE": str(ca_file)}
        settings = dataclasses.replace(egress_from_env(env), per_origin_min_interval=0.0)
        plain, gate, ratio = asyncio.run(
            overhead(port, ca_pem, settings, args.requests, args.rounds)
        )
        print(
            f"\n100 KB page, loopback HTTPS, {args.requests} sequential GETs x {args.rounds} rounds"
        )
        print(f"{'client':<28}{'ms/request':>12}{'ratio':>8}")
        print(f"{'httpx.AsyncClient.get':<28}{plain * 1000:>12.3f}{1.0:>8.2f}")
        note = "(median of paired rounds; target < 1.15)"
        print(f"{'Egress.fetch':<28}{gate * 1000:>12.3f}{ratio:>8.2f}   {note}")

        print("\n50 concurrent fetches of a 1 GiB body, cap 5 MiB: peak RSS growth")
        print(f"{'body':<18}{'origins':>8}{'limits':>30}{'MiB':>8}  outcomes")
        unlimited = dataclasses.replace(settings, max_concurrent_fetches=50)
        scenarios = [
            (settings, 1, "per-origin 2 (default)"),
            (settings, 50, "process-wide 16 (default)"),
            (unlimited, 50, "none binding: 50 at once"),
        ]
        for path, label in (("/gib", "1 GiB identity"), ("/bomb", "1 GiB gzip bomb")):
            for scenario, hosts, limits in scenarios:
                results = ctx.Queue()
                worker = ctx.Process(target=memory_in_child, args=(results, scenario, path, hosts))
                worker.start()
                growth, outcomes = results.get(timeout=120)
                worker.join()
                print(f"{label:<18}{hosts:>8}{limits:>30}{growth:>8.1f}  {outcomes}")
        print("\ntarget: growth < 150 MiB")
    finally:
        stop.set()
        child.join(timeout=5)
        ca_file.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
