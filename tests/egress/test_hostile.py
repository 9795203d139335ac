"""Decompression bombs under a memory promise, and egress through a CONNECT proxy."""

from __future__ import annotations

import socket

import pytest

from tests.egress.conftest import MakeEgress
from tests.support.hostile import (
    ConnectProxy,
    double_gzip_zeros,
    encoded_body,
    gzip_zeros,
)
from tests.support.memory import MIB, PeakRSS
from tests.support.origin import HTTPSOrigin, Route

HTML = ["text/html"]


@pytest.mark.parametrize(
    ("path", "encoding", "body"),
    [
        ("/bomb/gzip", "gzip", gzip_zeros),
        ("/bomb/gzip-gzip", "gzip, gzip", double_gzip_zeros),
    ],
)
async def test_gzip_bomb_is_cut_at_the_cap_in_bounded_memory(
    origin: HTTPSOrigin, make_egress: MakeEgress, path: str, encoding: str, body
) -> None:
    payload = body()  # 1 GiB of zeros once inflated
    assert len(payload) < 2 * MIB
    origin.routes[path] = encoded_body(payload, encoding)
    egress = make_egress()
    with PeakRSS() as rss:
        outcome = await egress.fetch(origin.url(path), accept=HTML)
    assert outcome.reason is None and outcome.truncated
    assert len(outcome.body) == egress._settings.max_body_bytes
    assert outcome.body.count(0) == len(outcome.body)
    assert rss.peak - rss.start < 100 * MIB


def test_double_gzip_bomb_is_a_few_kib_for_one_gib() -> None:
    import zlib

    bomb = double_gzip_zeros()
    assert len(bomb) < 8 * 1024
    inner = zlib.decompressobj(31).decompress(bomb)
    head = zlib.decompressobj(31).decompress(inner, 1 << 20)
    assert head == bytes(1 << 20)
    assert inner[-4:] == (1 << 30 & 0xFFFFFFFF).to_bytes(4, "little")


async def test_fetch_through_a_connect_proxy_names_the_checked_address(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/via-proxy"] = Route(b"<p>proxied</p>")
    with ConnectProxy(permitted=[("127.0.0.1", origin.port)]) as proxy:
        egress = make_egress(proxy=proxy.url, also_dial=[("127.0.0.1", proxy.port)])
        outcome = await egress.fetch(origin.url("/via-proxy"), accept=HTML)
        refused = await egress.fetch("https://169.254.169.254/latest/meta-data/", accept=HTML)
        targets = list(proxy.targets)
    assert (outcome.reason, outcome.body) == (None, b"<p>proxied</p>")
    assert outcome.final_url == origin.url("/via-proxy")
    assert refused.reason == "unsafe_url"
    assert targets == [f"127.0.0.1:{origin.port}"]


async def test_proxy_that_refuses_the_tunnel_is_egress_unavailable(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    with ConnectProxy(permitted=[]) as proxy:
        egress = make_egress(proxy=proxy.url, also_dial=[("127.0.0.1", proxy.port)])
        outcome = await egress.fetch(origin.url("/"), accept=HTML)
    assert outcome.reason == "egress_unavailable"


async def test_proxy_down_is_egress_unavailable(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    egress = make_egress(proxy=f"http://127.0.0.1:{port}", also_dial=[("127.0.0.1", port)])
    hits = sum(origin.hits.values())
    outcome = await egress.fetch(origin.url("/"), accept=HTML)
    assert outcome.reason == "egress_unavailable"
    assert sum(origin.hits.values()) == hits
