"""Shared fixtures: one loopback HTTPS origin per module, an Egress wired to it with a
dial guard, and a canary that must never see a connection."""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from sosoapi.config import egress_from_env
from sosoapi.egress.gate import Egress
from sosoapi.egress.settings import EgressSettings
from tests.support.hostile import Canary, DialGuard
from tests.support.origin import HTTPSOrigin

LOOPBACK = ipaddress.ip_address("127.0.0.1")


@pytest.fixture(scope="module")
def origin() -> Iterator[HTTPSOrigin]:
    with HTTPSOrigin() as server:
        yield server


@pytest.fixture
def canary() -> Iterator[Canary]:
    with Canary() as listener:
        yield listener


def settings_for(origin: HTTPSOrigin, **overrides: object) -> EgressSettings:
    """Admit `origin` and nothing else; no politeness delay unless a test asks.

    These tests count the lookups and dials of the page alone, so robots.txt is off
    unless a test asks (test_robots.py covers it, through this same gate).
    """
    base = egress_from_env(origin.egress_env())
    defaults = {"per_origin_min_interval": 0.0, "robots_txt": "user_triggered"}
    return dataclasses.replace(base, **{**defaults, **overrides})


MakeEgress = Callable[..., Egress]


@pytest.fixture
async def make_egress(origin: HTTPSOrigin, canary: Canary) -> AsyncIterator[MakeEgress]:
    made: list[tuple[Egress, DialGuard]] = []

    def make(**overrides: object) -> Egress:
        resolver = overrides.pop("resolver", None)
        extra = list(overrides.pop("also_dial", []))  # type: ignore[call-overload]
        guard = DialGuard([("127.0.0.1", origin.port), *extra], canary)
        egress = Egress(settings_for(origin, **overrides), resolver=resolver, network_backend=guard)
        egress.guard = guard  # type: ignore[attr-defined]
        made.append((egress, guard))
        return egress

    yield make
    for egress, guard in made:
        await egress.aclose()
        assert guard.strays == [], f"dials outside the admitted origin: {guard.strays}"
    assert canary.connections == 0
