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
from tests.support.origin import HTTPSOrigin
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


def test_the_suite_is_large_and_covers_every_category() -> None:
    categories = Counter(case["category"] for case in CASES)
    assert len(CASES) >= 100
    assert {
        "ipv4_encodings",
        "ipv6_forms",
        "cloud_metadata",
        "parser_confusion",
        "schemes",
        "redirects_to_private",
        "userinfo",
        "ports",
        "hostnames_to_internal",
        "unresolvable",
    } <= set(categories)
    assert {case["expect"] for case in CASES} == {"unsafe_url", "not_found", "invalid"}
    assert len({case["url"] for case in CASES}) == len(CASES)


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
