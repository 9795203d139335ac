"""robots.txt by RFC 9309 for our user agent, read through the gate itself.

One loopback origin per test (its robots.txt differs per test): allowed, disallowed for
us or for everyone, missing (404: allowed), a server error (disallowed for a while), a
redirect to the rules, `Crawl-delay`, and the operator setting that skips robots.txt.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from tests.egress.conftest import MakeEgress
from tests.support.hostile import redirect_to
from tests.support.origin import HTTPSOrigin, Route

HTML = ["text/html"]
PAGE = b"<html><body><p>Hello</p></body></html>"
OURS = "User-agent: SosoAPI-Research\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n"


@pytest.fixture
def origin() -> Iterator[HTTPSOrigin]:
    with HTTPSOrigin({"/open": Route(PAGE), "/private/x": Route(PAGE)}) as server:
        yield server


def robots(text: str, status: int = 200) -> Route:
    return Route(text.encode(), status=status, content_type="text/plain")


@pytest.fixture
def obeying(make_egress: MakeEgress) -> MakeEgress:
    def make(**overrides: object) -> object:
        return make_egress(robots_txt="obey", **overrides)

    return make  # type: ignore[return-value]


async def test_rules_for_our_agent_allow_and_disallow(
    origin: HTTPSOrigin, obeying: MakeEgress
) -> None:
    origin.routes["/robots.txt"] = robots(OURS)
    egress = obeying()
    allowed = await egress.fetch(origin.url("/open"), accept=HTML)
    denied = await egress.fetch(origin.url("/private/x"), accept=HTML)
    assert (allowed.reason, allowed.body, allowed.robots_disallowed) == (None, PAGE, False)
    assert (denied.reason, denied.robots_disallowed) == ("access_denied", True)
    assert denied.final_url == origin.url("/private/x")
    assert origin.hits["/private/x"] == 0
    assert origin.hits["/robots.txt"] == 1  # cached per origin


async def test_a_group_for_everyone_binds_us_too(origin: HTTPSOrigin, obeying: MakeEgress) -> None:
    origin.routes["/robots.txt"] = robots("User-agent: *\nDisallow: /\n")
    denied = await obeying().fetch(origin.url("/open"), accept=HTML)
    assert (denied.reason, denied.robots_disallowed) == ("access_denied", True)
    assert origin.hits["/open"] == 0


async def test_missing_robots_txt_allows_everything(
    origin: HTTPSOrigin, obeying: MakeEgress
) -> None:
    egress = obeying()
    for path in ("/open", "/private/x"):
        outcome = await egress.fetch(origin.url(path), accept=HTML)
        assert (outcome.reason, outcome.body) == (None, PAGE)
    assert origin.hits["/robots.txt"] == 1


async def test_a_server_error_disallows_for_a_while(
    origin: HTTPSOrigin, obeying: MakeEgress
) -> None:
    origin.routes["/robots.txt"] = robots("down", status=503)
    egress = obeying(robots_error_seconds=1.0)
    for _ in range(2):
        denied = await egress.fetch(origin.url("/open"), accept=HTML)
        assert (denied.reason, denied.robots_disallowed) == ("access_denied", True)
    assert origin.hits["/robots.txt"] == 1  # the disallow is remembered, not re-asked
    assert origin.hits["/open"] == 0
    origin.routes["/robots.txt"] = robots("User-agent: *\nAllow: /\n")
    deadline = time.monotonic() + 30
    while (outcome := await egress.fetch(origin.url("/open"), accept=HTML)).reason is not None:
        assert time.monotonic() < deadline, "the error's disallow never expired"
        await asyncio.sleep(0.2)
    assert outcome.body == PAGE
    assert origin.hits["/robots.txt"] == 2


async def test_redirected_rules_are_followed(origin: HTTPSOrigin, obeying: MakeEgress) -> None:
    origin.routes["/robots.txt"] = redirect_to("/rules/robots.txt", status=301)
    origin.routes["/rules/robots.txt"] = robots(OURS)
    egress = obeying()
    denied = await egress.fetch(origin.url("/private/x"), accept=HTML)
    allowed = await egress.fetch(origin.url("/open"), accept=HTML)
    assert (denied.reason, denied.robots_disallowed) == ("access_denied", True)
    assert allowed.reason is None
    assert origin.hits["/rules/robots.txt"] == 1


async def test_a_redirected_page_is_judged_by_its_new_path(
    origin: HTTPSOrigin, obeying: MakeEgress
) -> None:
    origin.routes["/robots.txt"] = robots(OURS)
    origin.routes["/go"] = redirect_to("/private/x")
    denied = await obeying().fetch(origin.url("/go"), accept=HTML)
    assert (denied.reason, denied.robots_disallowed) == ("access_denied", True)
    assert origin.hits["/private/x"] == 0


async def test_crawl_delay_spaces_request_starts(origin: HTTPSOrigin, obeying: MakeEgress) -> None:
    origin.routes["/robots.txt"] = robots("User-agent: *\nCrawl-delay: 1\n")
    starts: list[float] = []
    lock = threading.Lock()

    def stamped(handler: BaseHTTPRequestHandler) -> None:
        with lock:
            starts.append(time.monotonic())
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(len(PAGE)))
        handler.end_headers()
        handler.wfile.write(PAGE)

    origin.routes["/open"] = stamped
    egress = obeying(per_origin_concurrency=4)
    for _ in range(3):
        assert (await egress.fetch(origin.url("/open"), accept=HTML)).reason is None
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert len(gaps) == 2 and min(gaps) >= 0.9  # the publisher's delay, not ours (0)


async def test_user_triggered_mode_never_reads_robots_txt(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/robots.txt"] = robots("User-agent: *\nDisallow: /\n")
    outcome = await make_egress(robots_txt="user_triggered").fetch(origin.url("/open"), accept=HTML)
    assert (outcome.reason, outcome.body) == (None, PAGE)
    assert origin.hits["/robots.txt"] == 0
