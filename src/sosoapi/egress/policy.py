"""What is safe to fetch: pure URL and address rules, no I/O.

Addresses are judged against explicit range tables, not `ipaddress.is_global`, which in
Python 3.11 calls `::ffff:127.0.0.1`, `64:ff9b::7f00:1`, `2002:7f00:1::`, `fec0::1` and
`192.0.0.192` fine. IPv6 is admitted only inside global unicast 2000::/3, and every IPv6
form that embeds an IPv4 address is blocked outright, whatever it embeds.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from sosoapi.contract.vocabulary import Cause, Reason
from sosoapi.egress.settings import AllowRule, EgressSettings
from sosoapi.egress.types import IPAddress
from sosoapi.egress.urls import NotHttps, Target, URLRefused, parse_url

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

BLOCKED_V4: tuple[ipaddress.IPv4Network, ...] = tuple(
    _V4(net)
    for net in (
        "0.0.0.0/8",  # "this network", unspecified
        "10.0.0.0/8",  # private
        "100.64.0.0/10",  # CGNAT (incl. 100.100.100.200, Alibaba metadata)
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local (incl. 169.254.169.254, 169.254.170.2 metadata)
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments (incl. 192.0.0.192)
        "192.0.2.0/24",  # TEST-NET-1 documentation
        "192.31.196.0/24",  # AS112-v4
        "192.52.193.0/24",  # AMT
        "192.88.99.0/24",  # 6to4 relay anycast (deprecated)
        "192.168.0.0/16",  # private
        "192.175.48.0/24",  # direct delegation AS112
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # TEST-NET-2 documentation
        "203.0.113.0/24",  # TEST-NET-3 documentation
        "224.0.0.0/4",  # multicast (incl. 233.252.0.0/24 MCAST-TEST-NET)
        "240.0.0.0/4",  # reserved (incl. 255.255.255.255 broadcast)
    )
)

GLOBAL_UNICAST_V6 = _V6("2000::/3")
BLOCKED_V6: tuple[ipaddress.IPv6Network, ...] = tuple(
    _V6(net)
    for net in (
        "::/8",  # reserved: ::, ::1, IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96
        "64:ff9b::/96",  # NAT64 well-known prefix
        "64:ff9b:1::/48",  # NAT64 local-use
        "100::/64",  # discard-only
        "2001::/23",  # IETF protocol assignments (Teredo 2001::/32, benchmarking, ORCHID)
        "2001:db8::/32",  # documentation
        "2002::/16",  # 6to4
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # SRv6 SIDs
        "fc00::/7",  # unique-local (incl. fd00:ec2::254, AWS metadata)
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated)
        "ff00::/8",  # multicast
    )
)

METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)


def is_blocked_address(ip: IPAddress) -> bool:
    """True when `ip` is not a publicly routable unicast address (allow rules ignored)."""
    if ip in METADATA_ADDRESSES:
        return True
    if ip.version == 4:
        return any(ip in net for net in BLOCKED_V4)
    if ip not in GLOBAL_UNICAST_V6:
        return True
    return any(ip in net for net in BLOCKED_V6)


def admits(rule: AllowRule, ip: IPAddress, port: int) -> bool:
    """Whether an operator's allow rule lets `ip:port` past the public-address rule."""
    if ip.version != rule.network.version or ip not in rule.network:
        return False
    return rule.port is None or rule.port == port


def is_admitted(ip: IPAddress, port: int, settings: EgressSettings) -> bool:
    """True when the gate may connect to `ip:port`.

    A rule with a port admits its addresses on that port by itself; a rule without one
    admits them on the SOSOAPI_EGRESS_PORTS ports. A public address needs no rule, but
    only on those ports: a rule's port never opens a port on any other host.
    """
    for rule in settings.allow:
        if admits(rule, ip, port) and (rule.port is not None or port in settings.ports):
            return True
    return port in settings.ports and not is_blocked_address(ip)


def may_admit_port(port: int, settings: EgressSettings) -> bool:
    """False when no address at all could be admitted on `port` (refused before lookup)."""
    return port in settings.ports or any(rule.port == port for rule in settings.allow)


def is_unsupported_source(host: str, settings: EgressSettings) -> bool:
    """True when `host` is, or is under, one of the configured platform host suffixes."""
    return any(host == s or host.endswith("." + s) for s in settings.unsupported_sources)


@dataclass(frozen=True, slots=True)
class Refused:
    """Why a URL is refused before any lookup: the contract reason, and which cause."""

    reason: Reason
    cause: Cause | None = None


def judge(url: str, settings: EgressSettings) -> Target | Refused:
    """The parsed target, or why it is refused before any lookup."""
    try:
        target = parse_url(url)
    except URLRefused as refused:
        cause = Cause.NOT_HTTPS if isinstance(refused, NotHttps) else Cause.MALFORMED_URL
        return Refused(Reason.UNSAFE_URL, cause)
    if not may_admit_port(target.port, settings):
        return Refused(Reason.UNSAFE_URL, Cause.PORT_NOT_ALLOWED)
    if target.ip is not None:
        if is_admitted(target.ip, target.port, settings):
            return target
        return Refused(Reason.UNSAFE_URL, address_cause(target.ip))
    if is_unsupported_source(target.host, settings):
        return Refused(Reason.UNSUPPORTED_SOURCE)
    return target


def address_cause(ip: IPAddress) -> Cause:
    """Why an address that `is_admitted` refused was refused: the address itself, or (a
    public address) only the port it was asked on."""
    return Cause.PRIVATE_ADDRESS if is_blocked_address(ip) else Cause.PORT_NOT_ALLOWED


def judge_url(url: str, settings: EgressSettings) -> Target | Reason:
    """The parsed target, or the reason it is refused before any lookup."""
    judged = judge(url, settings)
    return judged.reason if isinstance(judged, Refused) else judged
