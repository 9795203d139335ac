"""Egress settings, and the parsers of their SOSOAPI_EGRESS_* values (read by `config`).

Every parse error names the variable, the bad value and how to fix it, because a
mistyped allow rule or pin silently changes what the gate lets through.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sosoapi.contract.numbers import whole_number
from sosoapi.egress.types import IPAddress, IPNetwork
from sosoapi.egress.urls import normalize_host

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


@dataclass(frozen=True)
class EgressSettings:
    """Everything the gate needs; `config.egress_from_env` reads it from SOSOAPI_* variables."""

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
    robots_max_crawl_delay: float = 10.0  # a publisher's Crawl-delay is honoured up to this


ROBOTS_MODES = ("obey", "user_triggered")


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
    port = whole_number(text, least=1, most=65535)
    if port is None:
        raise ValueError(f"{variable}: {item!r} has port {text!r}: use a number 1..65535")
    return port


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
    pins: dict[str, IPAddress] = {}
    for item in _items(value):
        host, sep, addr = item.partition(":")
        if addr.startswith("[") and addr.endswith("]"):
            addr = addr[1:-1]
        try:
            ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(addr)
            name: str | None = normalize_host(host)
        except ValueError:
            ip = name = None
        if not sep or ip is None or not name:
            raise ValueError(
                f"SOSOAPI_EGRESS_RESOLVE: {item!r} is not host:ip: use e.g. "
                "origin.test:127.0.0.1 or origin.test:[::1] (IPv6 in brackets)"
            )
        pins[name] = ip
    return pins


def ca_bundle(value: str) -> str | None:
    path = value.strip()
    if not path:
        return None
    if not Path(path).is_file():
        raise ValueError(
            f"SOSOAPI_EGRESS_CA_BUNDLE={path!r} is not a readable file: point it at a PEM "
            "file of extra CA certificates, or unset it"
        )
    return path


def ports(value: str) -> frozenset[int]:
    return frozenset(_port(p, "SOSOAPI_EGRESS_PORTS", value) for p in _items(value))


def hosts(value: str | None) -> tuple[str, ...]:
    if value is None:
        return ()
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


def proxy(value: str) -> str | None:
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
