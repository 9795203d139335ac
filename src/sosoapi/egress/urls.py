"""One strict URL parser: the host it returns is exactly the host the gate dials.

Parser-confusion attacks work when the policy and the HTTP client read a URL differently.
Here the policy and the dialler share one parse: `parse_url` produces a canonical ASCII
URL, and the request is built from that, never from the caller's string. Anything a
reasonable parser could read two ways (backslashes, whitespace, controls, userinfo,
percent-encoded hosts, zone ids) is refused rather than guessed.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass

import idna

from sosoapi.contract.errors import SosoapiError
from sosoapi.contract.numbers import whole_number
from sosoapi.egress.types import IPAddress

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_\-]{0,61}[a-z0-9_])?")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = _PATH_SAFE + "?"
MAX_SOURCE_URL = 2048  # the longest source URL a result records (the contract's bound)


def is_recordable(url: str) -> bool:
    """Whether a final URL fits the result's `source_url`; a longer one is unsupported."""
    return len(url) <= MAX_SOURCE_URL


class URLRefused(SosoapiError, ValueError):
    """The string is not an https URL the gate can judge unambiguously."""


class NotHttps(URLRefused):
    """A well-formed URL of another scheme (http://, ftp://...): the fix is its https URL."""


@dataclass(frozen=True, slots=True)
class Target:
    """A parsed, canonical https URL: what will be dialled and requested."""

    url: str
    host: str
    port: int
    ip: IPAddress | None
    request_target: str

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == 443 else f"{host}:{self.port}"


def parse_url(url: str) -> Target:
    """Parse `url` strictly; raise URLRefused for anything not an unambiguous https URL."""
    _refuse_confusing_characters(url)
    scheme, sep, rest = url.partition(":")
    if not sep or not _SCHEME.fullmatch(scheme):
        raise URLRefused("no scheme")
    if scheme.lower() != "https":
        raise NotHttps(f"scheme {scheme!r} is not https")
    if not rest.startswith("//"):
        raise URLRefused("no authority")
    rest = rest[2:]
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, rest = rest[:end], rest[end:]
    host, port = _split_authority(authority)
    rest = rest.partition("#")[0]
    path, qmark, query = rest.partition("?")
    target = _encode(path or "/", _PATH_SAFE) + (qmark + _encode(query, _QUERY_SAFE))
    ip = ipv4_from_host(host) if not host.startswith("[") else _ipv6_literal(host)
    name = ip.compressed if ip is not None else host
    parsed = Target(url="", host=name, port=port, ip=ip, request_target=target)
    return Target(f"https://{parsed.authority}{target}", name, port, ip, target)


def _refuse_confusing_characters(url: str) -> None:
    for char in url:
        if char == "\\" or char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Zl"):
            raise URLRefused(f"character {char!r} makes the URL ambiguous")


def _split_authority(authority: str) -> tuple[str, int]:
    if "@" in authority:
        raise URLRefused("credentials (userinfo) in the URL")
    if authority.startswith("["):
        inner, sep, tail = authority.partition("]")
        host, port_text = inner + sep, tail.removeprefix(":")
        if tail and not tail.startswith(":"):
            raise URLRefused("text after the IPv6 literal")
    else:
        host, _, port_text = authority.partition(":")
        host = normalize_host(host)
    return host, _parse_port(port_text)


def _parse_port(text: str) -> int:
    if not text:
        return 443
    port = whole_number(text, least=1, most=65535)
    if port is None:
        raise URLRefused(f"port {text!r} is not a number 1..65535")
    return port


def normalize_host(host: str) -> str:
    """Lower-case ASCII (IDNA 2008 with UTS #46 mapping) host name, no trailing dot."""
    if not host or "%" in host:
        raise URLRefused("empty or percent-encoded host")
    try:
        ascii_host = (
            host.lower() if host.isascii() else idna.encode(host, uts46=True).decode("ascii")
        )
        for label in ascii_host.split("."):
            if label.startswith("xn--"):
                idna.decode(label)
    except idna.IDNAError as exc:
        raise URLRefused(f"host {host!r} is not a valid IDNA name: {exc}") from None
    ascii_host = ascii_host.removesuffix(".")
    labels = ascii_host.split(".")
    if len(ascii_host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise URLRefused(f"host {host!r} is not a valid host name")
    return ascii_host


def ipv4_from_host(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a resolver would read from a numeric host, as WHATWG URL does.

    `127.1`, `0x7f000001`, `2130706433` and `0177.0.0.1` are all 127.0.0.1 to getaddrinfo,
    so they are judged as that address. A host whose last label is numeric but does not
    parse is refused (WHATWG treats it as a failure too).
    """
    parts = host.split(".")
    if not _is_number(parts[-1]):
        return None
    if len(parts) > 4:
        raise URLRefused(f"host {host!r} ends in a number but is not an IPv4 address")
    numbers = [_parse_ipv4_part(part, host) for part in parts]
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise URLRefused(f"host {host!r} is an out-of-range IPv4 address")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _is_number(label: str) -> bool:
    if label.isdigit():
        return True
    return label[:2] in ("0x", "0X") and all(c in "0123456789abcdefABCDEF" for c in label[2:])


def _parse_ipv4_part(part: str, host: str) -> int:
    try:
        if part[:2] in ("0x", "0X"):
            return int(part[2:] or "0", 16)
        if len(part) > 1 and part.startswith("0"):
            return int(part[1:], 8)
        return int(part, 10)
    except ValueError:
        raise URLRefused(f"host {host!r} has a non-numeric IPv4 part {part!r}") from None


def _ipv6_literal(bracketed: str) -> ipaddress.IPv6Address:
    inner = bracketed[1:-1]
    if not bracketed.endswith("]") or "%" in inner:
        raise URLRefused("IPv6 literal with a zone id or without ']'")
    try:
        return ipaddress.IPv6Address(inner)
    except ValueError:
        raise URLRefused(f"{bracketed!r} is not an IPv6 address") from None


def _encode(text: str, safe: str) -> str:
    from urllib.parse import quote

    return quote(_BAD_ESCAPE.sub("%25", text), safe=safe)


def join_location(base: Target, location: str) -> str:
    """Resolve a redirect `Location` against the URL that sent it (RFC 3986 section 5)."""
    from urllib.parse import urljoin

    return urljoin(base.url, location.strip(" \t"))
