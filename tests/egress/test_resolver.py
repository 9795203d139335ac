"""Resolvers: pins answer first, the system resolver is asked once, answers are checked."""

from __future__ import annotations

import ipaddress

import pytest

from sosoapi.egress.resolver import NameNotFound, PinnedResolver, SystemResolver
from tests.support.hostile import MapResolver

PIN = ipaddress.ip_address("192.0.2.10")


async def test_pins_replace_dns_for_their_names_only() -> None:
    fallback = MapResolver(ipaddress.ip_address("8.8.8.8"))
    resolver = PinnedResolver({"pinned.test": PIN}, fallback)
    assert await resolver.resolve("pinned.test", 443) == [PIN]
    assert await resolver.resolve("other.test", 443) == [ipaddress.ip_address("8.8.8.8")]
    assert fallback.lookups == ["other.test"]


async def test_missing_names_raise_name_not_found() -> None:
    resolver = PinnedResolver({}, MapResolver(None))
    with pytest.raises(NameNotFound):
        await resolver.resolve("gone.invalid", 443)


async def test_system_resolver_reads_localhost_from_the_hosts_file() -> None:
    addresses = await SystemResolver().resolve("localhost", 443)
    assert addresses and all(ip.is_loopback for ip in addresses)
    assert len(addresses) == len(set(addresses))
