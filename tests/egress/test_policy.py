"""Address and URL policy, one blocked address at a time (ipaddress gets several wrong)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sosoapi.contract.errors import ServiceError
from sosoapi.contract.schemas import validate_input
from sosoapi.egress.policy import is_admitted, is_blocked_address, judge_url
from sosoapi.egress.settings import EgressSettings, parse_allow
from sosoapi.egress.urls import URLRefused, ipv4_from_host, normalize_host, parse_url
from tests.support.urls import check_url, is_valid_uri

BLOCKED = [
    # loopback
    "127.0.0.1",
    "127.255.255.254",
    "::1",
    # private
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.0.1",
    "192.168.255.255",
    # link-local
    "169.254.0.1",
    "169.254.255.254",
    "fe80::1",
    "febf:ffff::1",
    # CGNAT
    "100.64.0.1",
    "100.127.255.254",
    # unspecified / this network
    "0.0.0.0",
    "0.1.2.3",
    "::",
    # multicast
    "224.0.0.1",
    "239.255.255.250",
    "233.252.0.1",
    "ff02::1",
    "ff05::1:3",
    # broadcast and reserved
    "255.255.255.255",
    "240.0.0.1",
    "250.1.2.3",
    # documentation
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "2001:db8::1",
    "3fff::1",
    # IETF assignments 192.0.0.0/24, including the one is_global misses
    "192.0.0.1",
    "192.0.0.8",
    "192.0.0.170",
    "192.0.0.192",
    # 6to4 relay anycast, benchmarking
    "192.88.99.1",
    "198.18.0.1",
    "198.19.255.254",
    # cloud metadata
    "169.254.169.254",
    "169.254.170.2",
    "fd00:ec2::254",
    "100.100.100.200",
    # IPv6 forms embedding IPv4: blocked whatever they embed (even public 8.8.8.8)
    "::ffff:127.0.0.1",
    "::ffff:8.8.8.8",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "::8.8.8.8",  # IPv4-compatible
    "::ffff:0:8.8.8.8",  # SIIT IPv4-translated
    "64:ff9b::7f00:1",
    "64:ff9b::808:808",
    "64:ff9b:1::a00:1",  # NAT64
    "2002:7f00:1::",
    "2002:808:808::1",  # 6to4
    "2001::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    # site-local, unique-local, discard, SRv6, non-global-unicast space
    "fec0::1",
    "feff::1",
    "fc00::1",
    "fd12:3456::1",
    "100::1",
    "5f00::1",
    "4000::1",
    "2001:2::1",
    "2001:10::1",
]

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "151.101.1.69",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "2620:fe::fe",
    "192.0.3.1",
    "100.63.255.255",
    "100.128.0.1",
    "172.32.0.1",
    "169.253.255.255",
]


@pytest.mark.parametrize("address", BLOCKED)
def test_blocked_address(address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert is_blocked_address(ip)
    assert not is_admitted(ip, 443, EgressSettings())


@pytest.mark.parametrize("address", PUBLIC)
def test_public_address(address: str) -> None:
    assert not is_blocked_address(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address",
    [
        "::ffff:127.0.0.1",
        "::127.0.0.1",
        "64:ff9b::7f00:1",
        "2002:7f00:1::",
        "fec0::1",
        "192.0.0.192",
        "192.88.99.1",
    ],
)
def test_addresses_python_misjudges_are_blocked(address: str) -> None:
    """The reason for explicit tables: ipaddress calls these global or not loopback."""
    ip = ipaddress.ip_address(address)
    assert ip.is_global or (address == "::ffff:127.0.0.1" and not ip.is_loopback)
    assert is_blocked_address(ip)


def test_allow_rules_admit_only_what_they_name() -> None:
    settings = EgressSettings(allow=parse_allow("127.0.0.1:8443,10.1.0.0/16,[::1]"))
    assert is_admitted(ipaddress.ip_address("127.0.0.1"), 8443, settings)
    assert not is_admitted(ipaddress.ip_address("127.0.0.1"), 443, settings)
    assert not is_admitted(ipaddress.ip_address("127.0.0.2"), 8443, settings)
    assert is_admitted(ipaddress.ip_address("10.1.2.3"), 443, settings)
    assert not is_admitted(ipaddress.ip_address("10.2.0.1"), 443, settings)
    assert is_admitted(ipaddress.ip_address("::1"), 443, settings)
    assert not is_admitted(ipaddress.ip_address("::1"), 9, settings)  # a portless rule: PORTS
    assert not is_admitted(ipaddress.ip_address("::ffff:127.0.0.1"), 8443, settings)
    assert not is_admitted(ipaddress.ip_address("169.254.169.254"), 443, settings)


@pytest.mark.parametrize(
    "host",
    [
        "127.1",
        "0x7f000001",
        "0X7F000001",
        "2130706433",
        "0177.0.0.1",
        "0x7f.1",
        "127.0.1",
        "0177.1",
        "017700000001",
        "0",
        "0x0",
        "127.000.000.001",
    ],
)
def test_numeric_hosts_are_judged_as_the_address_they_resolve_to(host: str) -> None:
    ip = ipv4_from_host(host)
    assert ip is not None and is_blocked_address(ip)
    assert check_url(f"https://{host}/", EgressSettings()) == "unsafe_url"


def test_numeric_host_forms_match_inet_aton() -> None:
    import socket

    for host in ["127.1", "0x7f000001", "2130706433", "0177.0.0.1", "10.0x1.0377"]:
        assert ipv4_from_host(host) == ipaddress.ip_address(socket.inet_aton(host))


@pytest.mark.parametrize(
    "host", ["1.2.3.4.5", "256.0.0.1", "1.2.3.0x1ff", "08.0.0.1", "4294967296"]
)
def test_malformed_numeric_hosts_are_refused(host: str) -> None:
    with pytest.raises(URLRefused):
        ipv4_from_host(host)


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.test\\@127.0.0.1/",
        "https://127.0.0.1\\@evil.test/",
        "https://evil.test /",
        "https://evil.test\t@127.0.0.1/",
        "https://evil.test\n.127.0.0.1/",
        "https://user@evil.test/",
        "https://user:pass@evil.test/",
        "https://:@evil.test/",
        "https://evil.test@127.0.0.1/",
        "https://127.0.0.1#@evil.test/",
        "https://127。0。0。1/",
        "https://１２７.０.０.１/",
        "https://127.0.0.1%2e/",
        "https://%31%32%37.0.0.1/",
        "https://[fe80::1%25eth0]/",
        "https://evil.test:80/",
        "https://evil.test:0/",
        "https://evil.test:99999/",
        "https://evil.test:443a/",
        "http://evil.test/",
        "HTTP://evil.test/",
        "ftp://evil.test/",
        "file:///etc/passwd",
        "gopher://127.0.0.1:6379/_",
        "https:evil.test",
        "https:/evil.test/",
        "//evil.test/",
        "https://",
        "https://[::1/",
        "https://evil\u200b.test/",
    ],
)
def test_parser_confusion_and_bad_forms_are_unsafe(url: str) -> None:
    assert check_url(url, EgressSettings()) == "unsafe_url"


def test_fragment_at_sign_dials_the_host_before_it() -> None:
    target = parse_url("https://public.test#@127.0.0.1/")
    assert target.host == "public.test"
    assert target.url == "https://public.test/"


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("Example.COM", "example.com"),
        ("example.com.", "example.com"),
        ("bücher.de", "xn--bcher-kva.de"),
        ("BÜCHER.de", "xn--bcher-kva.de"),
        ("ｅｘａｍｐｌｅ。ｃｏｍ", "example.com"),
        ("xn--bcher-kva.de", "xn--bcher-kva.de"),
        ("faß.de", "xn--fa-hia.de"),
    ],
)
def test_idna_normalisation(raw: str, normal: str) -> None:
    assert normalize_host(raw) == normal


@pytest.mark.parametrize("raw", ["xn--zz.de", "a..b", "-a.com", "a" * 64 + ".com", "ex ample.com"])
def test_invalid_host_names_are_refused(raw: str) -> None:
    with pytest.raises(URLRefused):
        normalize_host(raw)


def test_unsupported_sources_match_on_label_boundaries() -> None:
    settings = EgressSettings()
    assert check_url("https://www.youtube.com/watch?v=x", settings) == "unsupported_source"
    assert check_url("https://YOUTU.BE/x", settings) == "unsupported_source"
    assert check_url("https://notyoutube.com/", settings) is None
    assert check_url("https://youtube.com.evil.test/", settings) is None
    assert check_url("http://youtube.com/", settings) == "unsafe_url"


def test_ports() -> None:
    settings = EgressSettings(ports=frozenset({443, 8443}))
    assert check_url("https://a.test:8443/", settings) is None
    assert check_url("https://a.test:443/", settings) is None
    assert check_url("https://a.test/", settings) is None
    assert check_url("https://a.test:8080/", settings) == "unsafe_url"


def test_canonical_url_is_percent_encoded_and_a_valid_uri() -> None:
    target = judge_url(
        "https://Bücher.DE:443/päth/x y?q=ü#frag".replace(" ", "%20"), EgressSettings()
    )
    assert not isinstance(target, str)
    assert target.url == "https://xn--bcher-kva.de/p%C3%A4th/x%20y?q=%C3%BC"
    assert is_valid_uri(target.url)


@pytest.mark.parametrize(
    ("url", "valid"),
    [
        ("https://example.com/", True),
        ("https://example.com/a%20b?c=d#e", True),
        ("https://[::1]:8443/", True),
        ("https://example.com/a b", False),
        ("https://example.com\\@evil/", False),
        ("https://bücher.de/", False),
        ("example.com", False),
        ("", False),
        ("https://example.com/%zz", False),
    ],
)
def test_the_service_door_admits_exactly_the_valid_uris(url: str, valid: bool) -> None:
    """`valid` is RFC 3986's verdict, written by hand; the door must agree with it."""
    arguments = {
        "url": url,
        "kind": "url_text",
        "workspace_id": "11111111-1111-4111-8111-111111111111",
        "mutation_id": "40000000-0000-4000-8000-000000000001",
    }
    if valid:
        assert validate_input("sosoapi_research_evidence_retrieve", arguments) == arguments
    else:
        with pytest.raises(ServiceError) as caught:
            validate_input("sosoapi_research_evidence_retrieve", arguments)
        assert (caught.value.code, caught.value.field) == ("invalid_input", "url")
    assert is_valid_uri(url) is valid


@given(st.text(max_size=60))
def test_check_url_never_raises_and_canonical_urls_reparse(text: str) -> None:
    url = "https://" + text
    judged = judge_url(url, EgressSettings(ports=frozenset(range(1, 65536))))
    if isinstance(judged, str):
        assert judged in ("unsafe_url", "unsupported_source")
        return
    again = parse_url(judged.url)
    assert (again.host, again.port, again.url) == (judged.host, judged.port, judged.url)
    assert is_valid_uri(judged.url)
