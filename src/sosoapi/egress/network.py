"""The dialler: connects only to an address the gate has checked for this very request.

httpcore asks its network backend to `connect_tcp(host, port)` with the URL's host name.
This backend ignores DNS entirely: it looks up the pin the gate set (in a context variable,
so concurrent fetches never see each other's pins) and dials that address, or refuses.
TLS is then verified by httpcore against the host name (SNI), so pinning keeps TLS intact.
With no pin, or a pin for another host, nothing is dialled: a bug cannot reach the network.
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

import httpcore
from httpcore import AsyncNetworkBackend, AsyncNetworkStream

from sosoapi.contract.errors import SosoapiError
from sosoapi.egress.types import IPAddress


@dataclass(frozen=True, slots=True)
class Pin:
    """Connections to `host:port` for the current hop go to `ip` and nowhere else."""

    host: str
    port: int
    ip: IPAddress


_MAX_CONNECT_HEAD = 16 * 1024
_current_pin: ContextVar[Pin | None] = ContextVar("sosoapi_egress_pin", default=None)


@contextlib.contextmanager
def pinned(pin: Pin) -> Iterator[None]:
    """Let the backend dial `pin` while this block runs (in this task only)."""
    token = _current_pin.set(pin)
    try:
        yield
    finally:
        _current_pin.reset(token)


class UnpinnedDial(SosoapiError, httpcore.ConnectError):
    """A connection was requested for an address the gate did not check."""


@dataclass(frozen=True, slots=True)
class Proxy:
    """An HTTP CONNECT proxy; `tls` when the proxy itself is reached over https."""

    host: str
    port: int
    tls: bool = False

    @classmethod
    def from_url(cls, url: str) -> Proxy:
        parsed = httpcore.URL(url)
        default = 443 if parsed.scheme == b"https" else 80
        host = parsed.host.decode("ascii").strip("[]")
        return cls(host, parsed.port or default, parsed.scheme == b"https")


class PinnedBackend(AsyncNetworkBackend):
    """Dial the pinned address for a host, directly or through a CONNECT tunnel to it.

    Through a proxy the tunnel names the checked IP address, never the host name, so the
    proxy cannot resolve the name to somewhere else either.
    """

    def __init__(
        self,
        inner: AsyncNetworkBackend | None = None,
        *,
        proxy: Proxy | None = None,
        proxy_ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._inner = inner or httpcore.AnyIOBackend()
        self._proxy = proxy
        self._proxy_ssl_context = proxy_ssl_context

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        ip = self._address_for(host, port)
        if self._proxy is None:
            return await self._inner.connect_tcp(
                ip.compressed, port, timeout=timeout, socket_options=socket_options
            )
        return await self._tunnel(ip, port, timeout, socket_options)

    def _address_for(self, host: str, port: int) -> IPAddress:
        pin = _current_pin.get()
        if pin is None or pin.host != host.strip("[]").lower() or pin.port != port:
            raise UnpinnedDial(f"refused to dial {host}:{port}: no checked address for it")
        return pin.ip

    async def _tunnel(
        self,
        ip: IPAddress,
        port: int,
        seconds: float | None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None,
    ) -> AsyncNetworkStream:
        assert self._proxy is not None
        stream = await self._inner.connect_tcp(
            self._proxy.host, self._proxy.port, timeout=seconds, socket_options=socket_options
        )
        try:
            if self._proxy.tls:
                context = self._proxy_ssl_context or ssl.create_default_context()
                stream = await stream.start_tls(context, self._proxy.host, seconds)
            target = f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"
            request = f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n"
            await stream.write(request.encode("ascii"), seconds)
            status = await _read_connect_status(stream, seconds)
        except BaseException:
            await stream.aclose()
            raise
        if not 200 <= status < 300:
            await stream.aclose()
            raise httpcore.ProxyError(f"proxy refused CONNECT {target}: status {status}")
        return stream

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        raise UnpinnedDial("unix sockets are never dialled by the egress gate")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


async def _read_connect_status(stream: AsyncNetworkStream, seconds: float | None) -> int:
    """Read the proxy's reply head (bounded) and return its status code."""
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = await stream.read(4096, seconds)
        if not chunk:
            raise httpcore.ProxyError("proxy closed the connection during CONNECT")
        head += chunk
        if len(head) > _MAX_CONNECT_HEAD:
            raise httpcore.ProxyError("proxy reply to CONNECT is too long")
    if not head.endswith(b"\r\n\r\n"):
        raise httpcore.ProxyError("proxy sent data before the tunnel was open")
    status_line = head.split(b"\r\n", 1)[0].split()
    if len(status_line) < 2 or not status_line[1].isdigit():
        raise httpcore.ProxyError(f"proxy reply {status_line!r} is not HTTP")
    return int(status_line[1])
