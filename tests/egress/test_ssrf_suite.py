"""The data-driven adversarial suite: every case in ssrf_cases.json through Egress.fetch.

Every host name resolves to a canary listener on loopback that no allow rule admits
(names under .invalid do not resolve); the dial guard sends any stray dial to the canary
and refuses anything outside loopback. The canary must see nothing, ever.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from sosoapi.egress.resolver import NameNotFound
from sosoapi.egress.types import IPAddress
from tests.egress.conftest import MakeEgress
from tests.support.hostile import Canary, redirect_from_query
from tests.support.origin import HTTPSOrigin, Route
from tests.support.urls import is_valid_uri

CASES = json.loads((Path(__file__).parent / "ssrf_cases.json").read_text("utf-8"))["cases"]
HTML = ["text/html", "application/xhtml+xml", "text/plain"]


class CanaryResolver:
    """Every name answers the canary's address, except the reserved .invalid TLD."""

    def __init__(self, canary: Canary) -> None:
        self.canary = canary
        self.lookups: list[str] = []

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        self.lookups.append(host)
        if host == "invalid" or host.endswith(".invalid"):
            raise NameNotFound(host)
        return [self.canary.address]


async def test_the_gate_refuses_every_category_yet_reads_an_admitted_origin(
    origin: HTTPSOrigin, canary: Canary, make_egress: MakeEgress
) -> None:
    """The suite is wide, and it proves something: on one harness, one case of every
    category is refused by the gate, while the same harness reads an admitted page, so the
    refusals are the gate's and not a harness that can reach nothing."""
    categories = Counter(case["category"] for case in CASES)
    assert len(CASES) >= 100 and len({case["url"] for case in CASES}) == len(CASES)
    assert set(categories) >= {
        "ipv4_encodings", "ipv6_forms", "cloud_metadata", "parser_confusion", "schemes",
        "redirects_to_private", "userinfo", "ports", "hostnames_to_internal", "unresolvable",
    }  # fmt: skip
    origin.routes["/redirect"] = redirect_from_query
    origin.routes["/control"] = Route(b"<p>admitted</p>")
    egress = make_egress(resolver=CanaryResolver(canary))
    reasons = {"unsafe_url": "unsafe_url", "invalid": "unsafe_url", "not_found": "not_found"}
    assert {case["expect"] for case in CASES} == set(reasons)
    for category in categories:
        case = next(c for c in CASES if c["category"] == category)
        url = case["url"].replace("{origin}", f"https://origin.test:{origin.port}")
        outcome = await egress.fetch(url, accept=HTML)
        assert (category, outcome.reason, outcome.body) == (category, reasons[case["expect"]], b"")
    control = await egress.fetch(origin.url("/control"), accept=HTML)
    assert (control.reason, control.body) == (None, b"<p>admitted</p>")
    assert canary.connections == 0


@pytest.mark.parametrize("case", CASES, ids=[f"{c['category']}:{c['url']}" for c in CASES])
async def test_adversarial_url(
    case: dict[str, str], origin: HTTPSOrigin, canary: Canary, make_egress: MakeEgress
) -> None:
    origin.routes["/redirect"] = redirect_from_query
    url = case["url"].replace("{origin}", f"https://origin.test:{origin.port}")
    resolver = CanaryResolver(canary)
    egress = make_egress(resolver=resolver)
    outcome = await egress.fetch(url, accept=HTML)
    expect = case["expect"]
    assert is_valid_uri(url) is (expect != "invalid")
    assert outcome.reason == ("unsafe_url" if expect == "invalid" else expect)
    assert outcome.body == b""
    strays = egress.guard.strays  # type: ignore[attr-defined]
    assert strays == [] and canary.connections == 0
    if "{origin}" in case["url"]:
        assert origin.hits["/redirect"] >= 1
