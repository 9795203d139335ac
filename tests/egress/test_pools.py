"""Per-origin connection pools: reuse within an origin, idle pools beyond the bound close,
and a pool in use is never closed under its request."""

from __future__ import annotations

import ssl

import httpcore

from sosoapi.egress.pools import OriginPools
from tests.support.origin import HTTPSOrigin, Route


def _pools(origin: HTTPSOrigin, max_origins: int) -> OriginPools:
    context = ssl.create_default_context(cafile=str(origin.ca_path))
    return OriginPools(
        lambda: httpcore.AsyncConnectionPool(ssl_context=context, max_keepalive_connections=2),
        max_origins=max_origins,
    )


async def _get(pools: OriginPools, key: str, origin: HTTPSOrigin) -> bytes:
    url = httpcore.URL(origin.url("/page", host="127.0.0.1"))
    async with pools.stream((key, origin.port), "GET", url) as response:
        return b"".join([chunk async for chunk in response.aiter_stream()])


async def test_an_origin_reuses_its_connection() -> None:
    with HTTPSOrigin({"/page": Route(b"hello")}) as origin:
        pools = _pools(origin, max_origins=4)
        assert await _get(pools, "a.test", origin) == b"hello"
        assert await _get(pools, "a.test", origin) == b"hello"
        await pools.aclose()
    assert origin.connections == 1


async def test_idle_pools_beyond_the_bound_close_least_recently_used_first() -> None:
    with HTTPSOrigin({"/page": Route(b"hello")}) as origin:
        pools = _pools(origin, max_origins=2)
        for key in ("a.test", "b.test", "c.test"):
            await _get(pools, key, origin)
        assert len(pools) == 2
        await _get(pools, "c.test", origin)  # still pooled: no new connection
        assert origin.connections == 3
        await _get(pools, "a.test", origin)  # closed as least recently used: dials again
        assert origin.connections == 4
        await pools.aclose()


async def test_a_pool_in_use_is_not_closed_under_its_request() -> None:
    with HTTPSOrigin({"/page": Route(b"x" * 100_000)}) as origin:
        pools = _pools(origin, max_origins=1)
        url = httpcore.URL(origin.url("/page", host="127.0.0.1"))
        async with pools.stream(("held.test", origin.port), "GET", url) as held:
            await _get(pools, "b.test", origin)
            await _get(pools, "c.test", origin)
            body = b"".join([chunk async for chunk in held.aiter_stream()])
        assert body == b"x" * 100_000
        assert len(pools) == 1
        await pools.aclose()
