"""Egress.fetch against real HTTPS servers on loopback: one test per promised outcome."""

from __future__ import annotations

import gzip
import ipaddress
import socket
import threading
import time
import zlib
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler

import brotli
import pytest

from sosoapi.config import egress_from_env
from sosoapi.egress.gate import Egress
from tests.egress.conftest import LOOPBACK, MakeEgress, settings_for
from tests.support.hostile import (
    Canary,
    DialGuard,
    MapResolver,
    RebindingResolver,
    drip,
    encoded_body,
    endless_body,
    redirect_to,
    short_body,
)
from tests.support.origin import HTTPSOrigin, Route

HTML = ["text/html", "application/xhtml+xml", "text/plain"]
PAGE = b"<html><body><p>Hello</p></body></html>"


async def test_reads_a_page_with_provenance(origin: HTTPSOrigin, make_egress: MakeEgress) -> None:
    seen: dict[str, str] = {}

    def page(handler: BaseHTTPRequestHandler) -> None:
        seen.update({k.lower(): v for k, v in handler.headers.items()})
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=iso-8859-1")
        handler.send_header("Content-Language", "de-DE")
        handler.send_header("Content-Length", str(len(PAGE)))
        handler.end_headers()
        handler.wfile.write(PAGE)

    origin.routes["/page"] = page
    egress = make_egress()
    before = datetime.now(UTC)
    outcome = await egress.fetch(origin.url("/page?q=ü#top"), accept=HTML)
    assert outcome.reason is None
    assert outcome.body == PAGE
    assert outcome.status_code == 200
    assert outcome.content_type == "text/html; charset=iso-8859-1"
    assert outcome.content_language == "de-DE"
    assert outcome.final_url == f"https://origin.test:{origin.port}/page?q=%C3%BC"
    assert outcome.retrieved_at is not None and before <= outcome.retrieved_at <= datetime.now(UTC)
    assert not outcome.truncated and not outcome.short_body
    assert seen["accept-encoding"] == "identity"
    assert seen["user-agent"].startswith("SosoAPI-Research/")
    assert seen["accept"] == "text/html, application/xhtml+xml, text/plain"
    assert seen["host"] == f"origin.test:{origin.port}"
    assert "authorization" not in seen and "cookie" not in seen


async def test_missing_content_type_is_passed_through(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/bare"] = Route(b"WEBVTT\n\n", content_type=None)
    outcome = await make_egress().fetch(origin.url("/bare"), accept=["text/vtt"])
    assert outcome.reason is None and outcome.content_type is None
    assert outcome.body == b"WEBVTT\n\n"


async def test_media_type_outside_accept_is_unsupported(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/image"] = Route(b"\x89PNG", content_type="image/png")
    outcome = await make_egress().fetch(origin.url("/image"), accept=HTML)
    assert outcome.reason == "unsupported_media"
    assert outcome.content_type == "image/png"
    assert outcome.body == b""


@pytest.mark.parametrize(
    ("status", "headers", "reason", "retry_after"),
    [
        (401, {"WWW-Authenticate": "Basic"}, "login_required", None),
        (403, {}, "access_denied", None),
        (404, {}, "not_found", None),
        (410, {}, "not_found", None),
        (429, {}, "rate_limited", 60),
        (429, {"Retry-After": "17"}, "rate_limited", 17),
        (503, {"Retry-After": "3"}, "rate_limited", 3),
        (503, {}, "unavailable", None),
        (500, {}, "unavailable", None),
        (502, {}, "unavailable", None),
    ],
)
async def test_status_outcomes(
    origin: HTTPSOrigin,
    make_egress: MakeEgress,
    status: int,
    headers: dict[str, str],
    reason: str,
    retry_after: int | None,
) -> None:
    origin.routes[f"/status/{status}"] = Route(b"no", status=status, headers=headers)
    outcome = await make_egress().fetch(origin.url(f"/status/{status}"), accept=HTML)
    assert (outcome.reason, outcome.retry_after_seconds) == (reason, retry_after)
    assert outcome.status_code == status
    # The error page is kept only where a bot defence may have sent a challenge.
    assert outcome.body == (b"no" if status in (403, 429, 503) else b"")
    for name, value in headers.items():
        assert outcome.header(name.lower()) == value


async def test_an_error_page_is_kept_bounded_with_every_header(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    """A challenge answer (here 405, AWS WAF's CAPTCHA status) keeps its first 64 KiB and
    its headers, gzip or not, so the reader can tell a challenge from an outage."""
    page = b"<html><body>" + b"x" * 200_000 + b"</body></html>"
    origin.routes["/captcha"] = Route(
        gzip.compress(page),
        status=405,
        headers={"Content-Encoding": "gzip", "x-amzn-waf-action": "captcha", "X-Two": "a"},
    )
    outcome = await make_egress().fetch(origin.url("/captcha"), accept=HTML)
    assert outcome.reason == "unavailable" and outcome.status_code == 405
    assert outcome.body == page[: 64 * 1024]
    assert outcome.header("x-amzn-waf-action") == "captcha"
    assert outcome.header("x-two") == "a" and outcome.header("content-encoding") == "gzip"


async def test_a_slow_error_page_does_not_hold_the_retrieval(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    """A 503 whose page drips in is settled with what arrived within ERROR_BODY_SECONDS."""

    def slow(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(503)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        for _ in range(100):
            try:
                handler.wfile.write(b"a")
                handler.wfile.flush()
            except OSError:
                return
            time.sleep(0.1)

    origin.routes["/slow-503"] = slow
    started = time.monotonic()
    outcome = await make_egress().fetch(origin.url("/slow-503"), accept=HTML)
    assert outcome.reason == "unavailable"
    assert 1.5 < time.monotonic() - started < 6
    assert 0 < len(outcome.body) < 100


async def test_retry_after_http_date(origin: HTTPSOrigin, make_egress: MakeEgress) -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    origin.routes["/busy"] = Route(status=503, headers={"Retry-After": when})
    outcome = await make_egress().fetch(origin.url("/busy"), accept=HTML)
    assert outcome.reason == "rate_limited"
    assert outcome.retry_after_seconds is not None and 110 <= outcome.retry_after_seconds <= 121


async def test_short_body_keeps_the_prefix(origin: HTTPSOrigin, make_egress: MakeEgress) -> None:
    origin.routes["/short"] = short_body(b"<p>only half", promised=1000)
    outcome = await make_egress().fetch(origin.url("/short"), accept=HTML)
    assert outcome.reason is None
    assert outcome.short_body and not outcome.truncated
    assert outcome.body == b"<p>only half"


async def test_body_over_the_cap_keeps_a_bounded_prefix(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/huge"] = endless_body()
    outcome = await make_egress(max_body_bytes=100_000).fetch(origin.url("/huge"), accept=HTML)
    assert outcome.reason is None and outcome.truncated and not outcome.short_body
    assert len(outcome.body) == 100_000
    assert outcome.body.startswith(b"<p>aaa")


async def test_compressed_bodies_are_inflated_although_we_asked_for_identity(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/gz"] = encoded_body(gzip.compress(PAGE), "gzip")
    origin.routes["/deflate"] = encoded_body(zlib.compress(PAGE), "deflate")
    origin.routes["/br"] = encoded_body(brotli.compress(PAGE), "br")
    origin.routes["/stacked"] = encoded_body(gzip.compress(brotli.compress(PAGE)), "br, gzip")
    origin.routes["/compress"] = encoded_body(b"\x1f\x9d...", "compress")
    origin.routes["/corrupt"] = encoded_body(b"\x1f\x8b\x08garbage", "gzip")
    egress = make_egress()
    for path in ("/gz", "/deflate", "/br", "/stacked"):
        outcome = await egress.fetch(origin.url(path), accept=HTML)
        assert (outcome.reason, outcome.body) == (None, PAGE), path
    assert (await egress.fetch(origin.url("/compress"), accept=HTML)).reason == "unavailable"
    assert (await egress.fetch(origin.url("/corrupt"), accept=HTML)).reason == "unavailable"


async def test_five_redirects_are_followed_and_a_sixth_is_not(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/end"] = Route(PAGE)
    for hop in range(1, 7):
        following = "/end" if hop == 1 else f"/hop{hop - 1}"
        status = (301, 302, 303, 307, 308)[hop % 5]
        origin.routes[f"/hop{hop}"] = redirect_to(following, status=status)
    egress = make_egress()
    five = await egress.fetch(origin.url("/hop5"), accept=HTML)
    assert (five.reason, five.body) == (None, PAGE)
    assert five.final_url == f"https://origin.test:{origin.port}/end"
    six = await egress.fetch(origin.url("/hop6"), accept=HTML)
    assert six.reason == "unavailable"
    assert origin.hits["/hop6"] == 1 and origin.hits["/hop1"] == 2


async def test_absolute_redirect_to_another_admitted_name(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/abs"] = redirect_to(origin.url("/landing", host="localhost"))
    origin.routes["/landing"] = Route(PAGE)
    resolver = MapResolver(None, {"localhost": LOOPBACK})
    outcome = await make_egress(resolver=resolver).fetch(origin.url("/abs"), accept=HTML)
    assert outcome.reason is None
    assert outcome.final_url == f"https://localhost:{origin.port}/landing"


@pytest.mark.parametrize(
    "location",
    [
        "http://origin.test/plain",
        "https://127.0.0.2/",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:127.0.0.1]/",
        "https://user@origin.test/",
        "https://0x7f000001/",
        "file:///etc/passwd",
        "https://metadata.test/",
    ],
)
async def test_redirects_into_unsafe_space_are_refused(
    origin: HTTPSOrigin, make_egress: MakeEgress, location: str
) -> None:
    origin.routes["/evil"] = redirect_to(location)
    resolver = MapResolver(LOOPBACK, {"metadata.test": LOOPBACK})
    hits = origin.hits["/evil"]
    outcome = await make_egress(resolver=resolver).fetch(origin.url("/evil"), accept=HTML)
    assert outcome.reason == "unsafe_url"
    assert origin.hits["/evil"] == hits + 1


async def test_name_that_does_not_resolve_is_not_found(make_egress: MakeEgress) -> None:
    resolver = MapResolver(None)
    outcome = await make_egress(resolver=resolver).fetch("https://nowhere.test/", accept=HTML)
    assert outcome.reason == "not_found"
    assert resolver.lookups == ["nowhere.test"]


async def test_pin_to_private_space_stays_blocked(origin: HTTPSOrigin, canary: Canary) -> None:
    settings = settings_for(origin, resolve={"pinned.test": LOOPBACK})
    guard = DialGuard([], canary)
    egress = Egress(settings, network_backend=guard)
    outcome = await egress.fetch("https://pinned.test/", accept=HTML)
    await egress.aclose()
    assert outcome.reason == "unsafe_url"
    assert guard.dials == [] and canary.connections == 0


async def test_every_address_of_a_name_must_be_admitted(make_egress: MakeEgress) -> None:
    class Mixed:
        async def resolve(self, host: str, port: int):
            return [ipaddress.ip_address("8.8.8.8"), ipaddress.ip_address("10.0.0.1")]

    egress = make_egress(resolver=Mixed())
    assert (await egress.fetch("https://mixed.test/", accept=HTML)).reason == "unsafe_url"
    assert egress.guard.dials == []  # type: ignore[attr-defined]


async def test_pinning_defeats_dns_rebinding(origin: HTTPSOrigin) -> None:
    """The name answers the origin first and a canary (same port, other loopback address)
    on every later lookup. The fetch reads the origin; the canary sees nothing."""
    origin.routes["/pinned"] = Route(PAGE)
    rebinder = RebindingResolver(first=LOOPBACK, later=ipaddress.ip_address("127.0.0.2"))
    sock = socket.create_server(("127.0.0.2", origin.port))
    connections = []
    sock.settimeout(0.1)

    def watch() -> None:
        while sock.fileno() != -1:
            try:
                connections.append(sock.accept())
            except (TimeoutError, OSError):
                continue

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        egress = Egress(settings_for(origin, resolve={}), resolver=rebinder)
        for _ in range(3):
            outcome = await egress.fetch(origin.url("/pinned"), accept=HTML)
            assert (outcome.reason, outcome.body) == (None, PAGE)
            rebinder.lookups.clear()  # the next fetch's first lookup answers the origin again
        origin.routes["/bounce"] = redirect_to("/pinned")
        bounced = await egress.fetch(origin.url("/bounce"), accept=HTML)
        await egress.aclose()
    finally:
        sock.close()
        watcher.join(timeout=1)
    assert bounced.reason == "unsafe_url"  # the second hop resolved again: to the canary
    assert rebinder.lookups == ["origin.test", "origin.test"]
    assert connections == []


async def test_certificate_from_an_unknown_ca_is_unsafe(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    with HTTPSOrigin({"/": Route(PAGE)}) as stranger:
        allow = (*settings_for(origin).allow, *settings_for(stranger).allow)
        egress = make_egress(
            allow=allow,
            ports=frozenset({origin.port, stranger.port}),
            also_dial=[("127.0.0.1", stranger.port)],
        )
        outcome = await egress.fetch(stranger.url("/"), accept=HTML)
        dialled = stranger.connections
    assert outcome.reason == "unsafe_url"
    assert dialled == 1 and stranger.hits["/"] == 0  # TLS refused: no request was sent


async def test_certificate_for_another_name_is_unsafe(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    """TLS is verified against the URL's host name, not the pinned address."""
    resolver = MapResolver(None, {"impostor.test": LOOPBACK})
    connections = origin.connections
    outcome = await make_egress(resolver=resolver).fetch(
        origin.url("/", host="impostor.test"), accept=HTML
    )
    assert outcome.reason == "unsafe_url"
    assert origin.connections == connections + 1


async def test_connection_refused_is_egress_unavailable(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    settings = settings_for(origin)
    from sosoapi.egress.settings import parse_allow

    egress = make_egress(
        allow=(*settings.allow, *parse_allow(f"127.0.0.1:{port}")),
        ports=frozenset({port}),
        also_dial=[("127.0.0.1", port)],
    )
    outcome = await egress.fetch(f"https://127.0.0.1:{port}/", accept=HTML)
    assert outcome.reason == "egress_unavailable"


async def test_drip_feed_settles_as_timeout_within_the_deadline(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/drip"] = drip(interval=0.05)
    egress = make_egress(total_timeout=1.0, read_timeout=5.0)
    started = time.monotonic()
    outcome = await egress.fetch(origin.url("/drip"), accept=HTML)
    elapsed = time.monotonic() - started
    assert outcome.reason == "timeout"
    assert outcome.final_url == origin.url("/drip")
    assert elapsed < 1.0 + 2.0


async def test_silent_origin_hits_the_read_timeout(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/silent"] = Route(PAGE, delay=3.0)
    outcome = await make_egress(read_timeout=0.3).fetch(origin.url("/silent"), accept=HTML)
    assert outcome.reason == "timeout"


class ConcurrencyProbe:
    """An origin handler that holds each request a while and records the most in flight."""

    def __init__(self, hold: float) -> None:
        self.hold = hold
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()

    def __call__(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(self.hold)
        with self._lock:
            self.active -= 1
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Content-Length", "2")
        handler.end_headers()
        handler.wfile.write(b"ok")


async def test_per_origin_concurrency_limit(origin: HTTPSOrigin, make_egress: MakeEgress) -> None:
    import asyncio

    probe = ConcurrencyProbe(hold=0.3)
    origin.routes["/slow"] = probe
    egress = make_egress(per_origin_concurrency=2)
    outcomes = await asyncio.gather(
        *(egress.fetch(origin.url("/slow"), accept=HTML) for _ in range(6))
    )
    assert all(o.reason is None and o.body == b"ok" for o in outcomes)
    assert probe.peak == 2


async def test_process_wide_capacity_bounds_fetches_in_flight(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    import asyncio

    probe = ConcurrencyProbe(hold=0.2)
    origin.routes["/capacity"] = probe
    egress = make_egress(max_concurrent_fetches=1, per_origin_concurrency=5)
    outcomes = await asyncio.gather(
        *(egress.fetch(origin.url("/capacity"), accept=HTML) for _ in range(3))
    )
    assert all(o.body == b"ok" for o in outcomes)
    assert probe.peak == 1


async def test_odd_statuses(origin: HTTPSOrigin, make_egress: MakeEgress) -> None:
    origin.routes["/nocontent"] = Route(b"", status=204, content_type=None)
    origin.routes["/nolocation"] = Route(b"", status=302)
    origin.routes["/notmodified"] = Route(b"", status=304)
    egress = make_egress()
    empty = await egress.fetch(origin.url("/nocontent"), accept=HTML)
    assert (empty.reason, empty.body, empty.status_code) == (None, b"", 204)
    assert (await egress.fetch(origin.url("/nolocation"), accept=HTML)).reason == "unavailable"
    assert (await egress.fetch(origin.url("/notmodified"), accept=HTML)).reason == "unavailable"


async def test_min_interval_spaces_requests_and_rate_limits_past_the_deadline(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/polite"] = Route(b"ok", content_type="text/plain")
    spaced = make_egress(per_origin_min_interval=0.3)
    started = time.monotonic()
    for _ in range(3):
        assert (await spaced.fetch(origin.url("/polite"), accept=HTML)).reason is None
    assert time.monotonic() - started >= 0.55
    strict = make_egress(per_origin_min_interval=30.0, total_timeout=0.5)
    assert (await strict.fetch(origin.url("/polite"), accept=HTML)).reason is None
    waited = await strict.fetch(origin.url("/polite"), accept=HTML)
    assert (waited.reason, waited.retry_after_seconds) == ("rate_limited", 30)


async def test_unsupported_source_is_refused_before_any_lookup(make_egress: MakeEgress) -> None:
    resolver = MapResolver(LOOPBACK)
    egress = make_egress(resolver=resolver)
    outcome = await egress.fetch("https://www.youtube.com/watch?v=abc", accept=HTML)
    assert outcome.reason == "unsupported_source"
    assert resolver.lookups == []


async def test_ipv6_origin(canary: Canary) -> None:
    try:
        server = HTTPSOrigin({"/": Route(PAGE)}, host="::1").start()
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    try:
        settings = egress_from_env(server.egress_env("v6.test"))
        guard = DialGuard([("::1", server.port)], canary)
        egress = Egress(settings, network_backend=guard)
        outcome = await egress.fetch(server.url("/", host="v6.test"), accept=HTML)
        literal = await egress.fetch(f"https://[::1]:{server.port}/", accept=HTML)
        await egress.aclose()
    finally:
        server.stop()
    assert (outcome.reason, outcome.body) == (None, PAGE)
    assert literal.reason == "unsafe_url"  # the certificate does not name ::1
    assert guard.strays == []


async def test_redirect_location_in_raw_utf8_is_followed(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    def raw_utf8(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(
            "HTTP/1.1 302 Found\r\nLocation: /café\r\nContent-Length: 0\r\n\r\n".encode()
        )

    origin.routes["/utf8"] = raw_utf8
    origin.routes["/caf%C3%A9"] = Route(PAGE)
    outcome = await make_egress().fetch(origin.url("/utf8"), accept=HTML)
    assert (outcome.reason, outcome.body) == (None, PAGE)
    assert outcome.final_url == origin.url("/caf%C3%A9")
