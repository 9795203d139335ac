"""Egress settings from SOSOAPI_EGRESS_* variables: parsed once, validated loudly.

Every parse error names the variable, the bad value and how to fix it, because a
mistyped allow rule or pin silently changes what the gate lets through.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
T = TypeVar("T", int, float)

DEFAULT_CONTACT_URL = "https://github.com/sosoapi/sosoapi-research"
DEFAULT_PLATFORM_HOSTS: tuple[str, ...] = (
    "youtube.com",
    "youtu.be",
    "youtube-nocookie.com",
    "vimeo.com",
    "tiktok.com",
    "dailymotion.com",
    "dai.ly",
    "twitch.tv",
    "facebook.com",
    "fb.watch",
    "instagram.com",
    "x.com",
    "twitter.com",
    "bilibili.com",
    "b23.tv",
    "rumble.com",
    "kick.com",
)


def user_agent_for(contact_url: str) -> str:
    """The documented user agent: product, version and where an operator can reach us."""
    return f"SosoAPI-Research/0.1 (+{contact_url})"


@dataclass(frozen=True, slots=True)
class AllowRule:
    """An address range admitted past the public-address rule, optionally on one port."""

    network: IPNetwork
    port: int | None = None

    def admits(self, ip: IPAddress, port: int) -> bool:
        if ip.version != self.network.version or ip not in self.network:
            return False
        return self.port is None or self.port == port


@dataclass(frozen=True)
class EgressSettings:
    """Everything the gate needs; `from_env` reads it from SOSOAPI_* variables."""

    allow: tuple[AllowRule, ...] = ()
    resolve: Mapping[str, IPAddress] = field(default_factory=dict)
    ca_bundle: str | None = None
    ports: frozenset[int] = frozenset({443})
    unsupported_sources: tuple[str, ...] = DEFAULT_PLATFORM_HOSTS
    proxy: str | None = None
    max_body_bytes: int = 5 * 1024 * 1024
    total_timeout: float = 20.0
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    max_redirects: int = 5
    user_agent: str = user_agent_for(DEFAULT_CONTACT_URL)
    per_origin_concurrency: int = 2
    per_origin_min_interval: float = 0.2
    max_concurrent_fetches: int = 16
    robots_txt: str = "obey"  # or "user_triggered": no robots.txt (docs/egress.md)
    robots_cache_seconds: float = 86400.0
    robots_error_seconds: float = 300.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> EgressSettings:
        """Build settings from `environ`; raise ValueError naming variable, value and fix."""
        defaults = cls()
        get = environ.get
        contact = get("SOSOAPI_EGRESS_CONTACT_URL", "").strip()
        if contact and not contact.startswith(("https://", "http://", "mailto:")):
            raise ValueError(
                f"SOSOAPI_EGRESS_CONTACT_URL={contact!r} is not a URL: give an https:// page "
                "or a mailto: address where site operators can reach you"
            )
        return cls(
            allow=parse_allow(get("SOSOAPI_EGRESS_ALLOW", "")),
            resolve=parse_resolve(get("SOSOAPI_EGRESS_RESOLVE", "")),
            ca_bundle=_ca_bundle(get("SOSOAPI_EGRESS_CA_BUNDLE", "")),
            ports=_ports(get("SOSOAPI_EGRESS_PORTS", "")) or defaults.ports,
            unsupported_sources=_hosts(get("SOSOAPI_UNSUPPORTED_SOURCES"))
            or defaults.unsupported_sources,
            proxy=_proxy(get("SOSOAPI_EGRESS_PROXY", "")),
            max_body_bytes=_number(
                environ, "SOSOAPI_EGRESS_MAX_BODY_BYTES", defaults.max_body_bytes, int, 1
            ),
            total_timeout=_number(
                environ, "SOSOAPI_EGRESS_TOTAL_TIMEOUT", defaults.total_timeout, float, 0.001
            ),
            connect_timeout=_number(
                environ, "SOSOAPI_EGRESS_CONNECT_TIMEOUT", defaults.connect_timeout, float, 0.001
            ),
            read_timeout=_number(
                environ, "SOSOAPI_EGRESS_READ_TIMEOUT", defaults.read_timeout, float, 0.001
            ),
            max_redirects=_number(
                environ, "SOSOAPI_EGRESS_MAX_REDIRECTS", defaults.max_redirects, int, 0
            ),
            user_agent=user_agent_for(contact) if contact else defaults.user_agent,
            per_origin_concurrency=_number(
                environ,
                "SOSOAPI_EGRESS_PER_ORIGIN_CONCURRENCY",
                defaults.per_origin_concurrency,
                int,
                1,
            ),
            per_origin_min_interval=_number(
                environ,
                "SOSOAPI_EGRESS_PER_ORIGIN_MIN_INTERVAL",
                defaults.per_origin_min_interval,
                float,
                0.0,
            ),
            max_concurrent_fetches=_number(
                environ,
                "SOSOAPI_EGRESS_MAX_CONCURRENCY",
                defaults.max_concurrent_fetches,
                int,
                1,
            ),
            robots_txt=_robots_mode(get("SOSOAPI_ROBOTS_TXT", "")) or defaults.robots_txt,
            robots_cache_seconds=_number(
                environ, "SOSOAPI_ROBOTS_CACHE_SECONDS", defaults.robots_cache_seconds, float, 1.0
            ),
            robots_error_seconds=_number(
                environ, "SOSOAPI_ROBOTS_ERROR_SECONDS", defaults.robots_error_seconds, float, 1.0
            ),
        )


ROBOTS_MODES = ("obey", "user_triggered")


def _robots_mode(value: str) -> str | None:
    mode = value.strip().lower()
    if mode and mode not in ROBOTS_MODES:
        raise ValueError(
            f"SOSOAPI_ROBOTS_TXT={value!r} is unknown; use `obey` (default) or "
            "`user_triggered` (only when every fetch is a person's explicit request)"
        )
    return mode or None


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _split_port(item: str, variable: str) -> tuple[str, int | None]:
    """Split "addr[:port]" where IPv6 addresses are bracketed: "[::1]:8443"."""
    if item.startswith("["):
        inner, sep, rest = item[1:].partition("]")
        if not sep:
            raise ValueError(
                f"{variable}: {item!r} opens '[' without ']': write IPv6 as [addr] or [addr]:port"
            )
        if not rest:
            return inner, None
        if not rest.startswith(":"):
            raise ValueError(f"{variable}: {item!r} has text after ']': use [addr]:port")
        return inner, _port(rest[1:], variable, item)
    if item.count(":") > 1:
        raise ValueError(
            f"{variable}: {item!r} looks like a bare IPv6 address: put it in brackets, "
            "e.g. [2001:db8::1] or [2001:db8::1]:443"
        )
    host, sep, port = item.partition(":")
    return host, _port(port, variable, item) if sep else None


def _port(text: str, variable: str, item: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"{variable}: {item!r} has port {text!r}: use a number 1..65535")
    return int(text)


def parse_allow(value: str) -> tuple[AllowRule, ...]:
    """SOSOAPI_EGRESS_ALLOW: "127.0.0.1:8443,10.0.0.0/8,[::1]:443" -> allow rules."""
    rules = []
    for item in _items(value):
        addr, port = _split_port(item, "SOSOAPI_EGRESS_ALLOW")
        try:
            network = ipaddress.ip_network(addr, strict=True)
        except ValueError as exc:
            raise ValueError(
                f"SOSOAPI_EGRESS_ALLOW: {item!r} is not an IP address or CIDR range ({exc}): "
                "use e.g. 127.0.0.1:8443, 10.0.0.0/8 or [::1]:443 (host names are not allowed)"
            ) from None
        rules.append(AllowRule(network, port))
    return tuple(rules)


def parse_resolve(value: str) -> dict[str, IPAddress]:
    """SOSOAPI_EGRESS_RESOLVE: "origin.test:127.0.0.1,v6.test:[::1]" -> {host: address}."""
    from sosoapi.egress.urls import normalize_host

    pins: dict[str, IPAddress] = {}
    for item in _items(value):
        host, sep, addr = item.partition(":")
        if addr.startswith("[") and addr.endswith("]"):
            addr = addr[1:-1]
        try:
            ip = ipaddress.ip_address(addr)
            name = normalize_host(host)
        except ValueError:
            ip = name = None
        if not sep or ip is None or not name:
            raise ValueError(
                f"SOSOAPI_EGRESS_RESOLVE: {item!r} is not host:ip: use e.g. "
                "origin.test:127.0.0.1 or origin.test:[::1] (IPv6 in brackets)"
            )
        pins[name] = ip
    return pins


def _ca_bundle(value: str) -> str | None:
    path = value.strip()
    if not path:
        return None
    if not Path(path).is_file():
        raise ValueError(
            f"SOSOAPI_EGRESS_CA_BUNDLE={path!r} is not a readable file: point it at a PEM "
            "file of extra CA certificates, or unset it"
        )
    return path


def _ports(value: str) -> frozenset[int]:
    return frozenset(_port(p, "SOSOAPI_EGRESS_PORTS", value) for p in _items(value))


def _hosts(value: str | None) -> tuple[str, ...]:
    if value is None:
        return ()
    from sosoapi.egress.urls import normalize_host

    hosts = []
    for item in _items(value):
        try:
            hosts.append(normalize_host(item.lstrip(".")))
        except ValueError:
            raise ValueError(
                f"SOSOAPI_UNSUPPORTED_SOURCES: {item!r} is not a host name: list host "
                "suffixes such as youtube.com,vimeo.com"
            ) from None
    return tuple(hosts)


def _proxy(value: str) -> str | None:
    proxy = value.strip()
    if not proxy:
        return None
    scheme, sep, rest = proxy.partition("://")
    host, port = ("", None)
    if sep and rest:
        host, port = _split_port(rest.rstrip("/"), "SOSOAPI_EGRESS_PROXY")
    if scheme not in ("http", "https") or not host or port is None:
        raise ValueError(
            f"SOSOAPI_EGRESS_PROXY={proxy!r} is not a proxy URL: use http://host:port "
            "(or https://host:port) of an HTTP CONNECT proxy"
        )
    return proxy.rstrip("/")


def _number(
    environ: Mapping[str, str], name: str, default: T, kind: Callable[[str], T], minimum: T
) -> T:
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or value < minimum:
        raise ValueError(
            f"{name}={raw!r} is not a valid {kind.__name__}: use a number >= {minimum}"
        )
    return value
