"""An allow rule's port (issue 10 item 13): the rule admits its address on that port by
itself, and SOSOAPI_EGRESS_PORTS governs public hosts only, never the rule's addresses."""

from __future__ import annotations

import ipaddress

from sosoapi.config import egress_from_env
from sosoapi.egress.policy import is_admitted, judge_url
from sosoapi.egress.settings import EgressSettings
from tests.egress.conftest import MakeEgress
from tests.support.hostile import MapResolver
from tests.support.origin import HTTPSOrigin, Route

HTML = ["text/html"]
PUBLIC = ipaddress.ip_address("93.184.216.34")
RULE_ONLY = egress_from_env({"SOSOAPI_EGRESS_ALLOW": "10.0.0.5:8443"})


def admitted(url: str, settings: EgressSettings) -> bool:
    return not isinstance(judge_url(url, settings), str)


def test_a_rule_with_a_port_admits_its_address_on_that_port_alone() -> None:
    assert RULE_ONLY.ports == frozenset({443})
    assert admitted("https://10.0.0.5:8443/", RULE_ONLY)
    assert not admitted("https://10.0.0.5/", RULE_ONLY)  # the rule names 8443, not 443
    assert not admitted("https://10.0.0.6:8443/", RULE_ONLY)


def test_a_rule_port_never_opens_that_port_on_public_hosts() -> None:
    assert not admitted(f"https://{PUBLIC}:8443/", RULE_ONLY)
    assert not is_admitted(PUBLIC, 8443, RULE_ONLY)
    assert is_admitted(PUBLIC, 443, RULE_ONLY)
    opened = egress_from_env(
        {"SOSOAPI_EGRESS_ALLOW": "10.0.0.5:8443", "SOSOAPI_EGRESS_PORTS": "443,8443"}
    )
    assert admitted(f"https://{PUBLIC}:8443/", opened)
    assert is_admitted(PUBLIC, 8443, opened)


def test_a_rule_without_a_port_follows_the_ports_setting() -> None:
    settings = egress_from_env({"SOSOAPI_EGRESS_ALLOW": "10.0.0.0/8"})
    assert admitted("https://10.0.0.5/", settings)
    assert not admitted("https://10.0.0.5:8443/", settings)


async def test_the_gate_reads_an_allowed_origin_whose_port_is_not_in_the_ports_list(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/ported"] = Route(b"<p>Through the rule's port</p>")
    egress = make_egress(ports=frozenset({443}))  # only the allow rule names origin.port
    outcome = await egress.fetch(origin.url("/ported"), accept=HTML)
    assert outcome.reason is None and b"rule's port" in outcome.body


async def test_the_gate_refuses_a_public_name_on_the_rule_port(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    resolver = MapResolver(PUBLIC)
    egress = make_egress(ports=frozenset({443}), resolver=resolver)
    outcome = await egress.fetch(f"https://public.test:{origin.port}/", accept=HTML)
    assert outcome.reason == "unsafe_url"
    assert resolver.lookups == ["public.test"]
    assert egress.guard.dials == []  # type: ignore[attr-defined]
