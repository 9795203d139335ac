"""Name resolution: once per hop, answers checked by the caller, pins before DNS.

`SOSOAPI_EGRESS_RESOLVE` pins replace DNS for their names; they never skip the address
check, which the gate applies to whatever a resolver answers.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping
from typing import Protocol

from sosoapi.contract.errors import SosoapiError
from sosoapi.egress.types import IPAddress

_NOT_FOUND_ERRORS = frozenset(
    code
    for code in (
        getattr(socket, "EAI_NONAME", None),
        getattr(socket, "EAI_NODATA", None),
        getattr(socket, "EAI_ADDRFAMILY", None),
    )
    if code is not None
)


class NameNotFound(SosoapiError, LookupError):
    """The name does not exist or has no address (NXDOMAIN, NODATA)."""


class ResolverUnavailable(SosoapiError, OSError):
    """The resolver could not answer (no network, server failure, timeout)."""


class Resolver(Protocol):
    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        """Every address `host` resolves to; raise NameNotFound or ResolverUnavailable."""
        ...


class SystemResolver:
    """One `getaddrinfo` call per lookup, through the event loop's executor."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except socket.gaierror as exc:
            if exc.errno in _NOT_FOUND_ERRORS:
                raise NameNotFound(host) from exc
            raise ResolverUnavailable(str(exc)) from exc
        addresses: list[IPAddress] = []
        for _family, _type, _proto, _name, sockaddr in infos:
            ip = ipaddress.ip_address(str(sockaddr[0]).partition("%")[0])
            if ip not in addresses:
                addresses.append(ip)
        if not addresses:
            raise NameNotFound(host)
        return addresses


class PinnedResolver:
    """Answer pinned names from `pins`; ask `fallback` for every other name."""

    def __init__(self, pins: Mapping[str, IPAddress], fallback: Resolver) -> None:
        self._pins = dict(pins)
        self._fallback = fallback

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        pinned = self._pins.get(host)
        if pinned is not None:
            return [pinned]
        return [ipaddress.ip_address(a) for a in await self._fallback.resolve(host, port)]
