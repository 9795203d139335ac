"""A reason with several causes says which: certificate failures (made with trustme),
private address vs port vs scheme, a 5xx vs a broken connection. The reason is unchanged."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler

import pytest

from sosoapi.contract.guidance import CAUSES, advice
from sosoapi.contract.vocabulary import Cause, Reason, State
from tests.egress.conftest import LOOPBACK, MakeEgress, settings_for
from tests.support.hostile import MapResolver
from tests.support.origin import HTTPSOrigin, Route

HTML = ["text/html"]
PAGE = b"<html><body><p>Hello</p></body></html>"


async def _fetch_stranger(origin: HTTPSOrigin, stranger: HTTPSOrigin, make_egress: MakeEgress):
    """Fetch from `stranger` through a gate admitting it but trusting only `origin`'s CA."""
    allow = (*settings_for(origin).allow, *settings_for(stranger).allow)
    egress = make_egress(
        allow=allow,
        ports=frozenset({origin.port, stranger.port}),
        also_dial=[("127.0.0.1", stranger.port)],
    )
    return await egress.fetch(stranger.url("/"), accept=HTML)


async def test_an_untrusted_issuer_is_named(
    origin: HTTPSOrigin, make_egress: MakeEgress, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.WARNING, "sosoapi.egress"),
        HTTPSOrigin({"/": Route(PAGE)}) as stranger,  # its own CA, unknown to the gate
    ):
        outcome = await _fetch_stranger(origin, stranger, make_egress)
    assert outcome.reason == Reason.UNSAFE_URL
    assert outcome.cause == Cause.CERTIFICATE_UNTRUSTED
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        "cause=certificate_untrusted host=origin.test" in m
        and "untrusted issuer" in m
        and "SOSOAPI_EGRESS_CA_BUNDLE" in m
        for m in warned
    ), warned


async def test_a_self_signed_certificate_is_named(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    with HTTPSOrigin({"/": Route(PAGE)}, self_signed=True) as stranger:
        outcome = await _fetch_stranger(origin, stranger, make_egress)
    assert (outcome.reason, outcome.cause) == (Reason.UNSAFE_URL, Cause.CERTIFICATE_SELF_SIGNED)


async def test_an_expired_certificate_is_named(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    expired = datetime.now(UTC) - timedelta(days=2)
    with HTTPSOrigin({"/": Route(PAGE)}, ca=origin.ca, not_after=expired) as stale:
        outcome = await _fetch_stranger(origin, stale, make_egress)
    assert (outcome.reason, outcome.cause) == (Reason.UNSAFE_URL, Cause.CERTIFICATE_EXPIRED)


async def test_a_name_mismatch_is_named(origin: HTTPSOrigin, make_egress: MakeEgress) -> None:
    resolver = MapResolver(None, {"impostor.test": LOOPBACK})
    outcome = await make_egress(resolver=resolver).fetch(
        origin.url("/", host="impostor.test"), accept=HTML
    )
    assert (outcome.reason, outcome.cause) == (Reason.UNSAFE_URL, Cause.CERTIFICATE_NAME_MISMATCH)


@pytest.mark.parametrize(
    ("url", "cause"),
    [
        ("https://10.0.0.1/private", Cause.PRIVATE_ADDRESS),
        ("https://[::1]/", Cause.PRIVATE_ADDRESS),
        ("https://93.184.215.14:8443/", Cause.PORT_NOT_ALLOWED),
        ("http://example.com/", Cause.NOT_HTTPS),
        ("https://user@example.com/", Cause.MALFORMED_URL),
    ],
)
async def test_unsafe_url_says_address_port_or_scheme(
    url: str, cause: Cause, make_egress: MakeEgress
) -> None:
    outcome = await make_egress().fetch(url, accept=HTML)
    assert (outcome.reason, outcome.cause) == (Reason.UNSAFE_URL, cause)


async def test_a_host_resolving_to_a_private_address_is_named(make_egress: MakeEgress) -> None:
    resolver = MapResolver(None, {"intranet.test": LOOPBACK})
    outcome = await make_egress(resolver=resolver, allow=()).fetch(
        "https://intranet.test/", accept=HTML
    )
    assert (outcome.reason, outcome.cause) == (Reason.UNSAFE_URL, Cause.PRIVATE_ADDRESS)


def _hang_up(handler: BaseHTTPRequestHandler) -> None:
    handler.close_connection = True  # the request read, then the connection gone, no answer


async def test_unavailable_says_5xx_or_broken_connection(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/down"] = Route(b"oops", status=503, content_type="text/plain")
    origin.routes["/teapot"] = Route(b"no", status=418, content_type="text/plain")
    origin.routes["/hang-up"] = _hang_up
    egress = make_egress()
    hung_up = await egress.fetch(origin.url("/hang-up"), accept=HTML)
    assert (hung_up.reason, hung_up.cause) == (Reason.UNAVAILABLE, Cause.CONNECTION_BROKEN)
    down = await egress.fetch(origin.url("/down"), accept=HTML)
    teapot = await egress.fetch(origin.url("/teapot"), accept=HTML)
    assert (down.reason, down.cause) == (Reason.UNAVAILABLE, Cause.ORIGIN_ERROR)
    assert (teapot.reason, teapot.cause) == (Reason.UNAVAILABLE, Cause.ORIGIN_STATUS)


def test_every_cause_has_advice_that_names_what_failed() -> None:
    assert set(CAUSES) == set(Cause)
    for cause, (reason, meaning, action) in CAUSES.items():
        sentence = advice(reason, State.COMPLETED, cause=cause)
        assert sentence.startswith(f"{reason.value}, {cause.value}: {meaning}; {action}")
        # a cause stored for another reason is ignored: that reason's own advice
        other = Reason.TIMEOUT
        assert advice(other, State.COMPLETED, cause=cause).startswith("timeout: ")
    assert "SOSOAPI_EGRESS_CA_BUNDLE" in advice(
        Reason.UNSAFE_URL, State.COMPLETED, cause="certificate_untrusted"
    )
    assert advice(Reason.UNSAFE_URL, State.COMPLETED, cause="from_the_future").startswith(
        "unsafe_url: the address is not"
    )
