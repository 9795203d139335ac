"""The adversarial SSRF suite through the real retrieve operation, not just the gate.

Every case of tests/egress/ssrf_cases.json is retrieved by the service with a resolver that
answers every name with a canary listener's loopback address (which no allow rule admits),
and a dial guard under the gate that refuses any dial but the admitted origin's. The canary
must see zero connections; each case is refused as invalid input or gets its receipt.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from sosoapi.application import Application
from sosoapi.contract.errors import ServiceError
from sosoapi.egress.gate import Egress
from sosoapi.store.settings import sqlite_url
from sosoapi.store.tables import mutations
from tests.egress.test_ssrf_suite import CanaryResolver
from tests.support.contract import assert_valid_output
from tests.support.hostile import Canary, DialGuard, redirect_from_query
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin
from tests.support.services import make_settings, owner_token

CASES = json.loads((Path(__file__).parents[1] / "egress" / "ssrf_cases.json").read_text("utf-8"))[
    "cases"
]
TOOL = "sosoapi_research_evidence_retrieve"


@pytest.fixture
def canary() -> Iterator[Canary]:
    with Canary() as listener:
        yield listener


async def test_every_adversarial_url_through_retrieve(
    tmp_path: Path, origin: HTTPSOrigin, canary: Canary
) -> None:
    origin.routes["/redirect"] = redirect_from_query
    settings = make_settings(sqlite_url(tmp_path), tmp_path, origin.egress_env())
    guard = DialGuard([("127.0.0.1", origin.port)], canary)
    egress = Egress(
        settings.egress,
        resolver=_OriginAware(CanaryResolver(canary), origin),
        network_backend=guard,
    )
    app = Application(settings, egress=egress)
    workspace_id, token = owner_token(app)
    outcomes: dict[str, int] = {}
    async with held_open(app.running()):
        for case in CASES:
            url = case["url"].replace("{origin}", f"https://origin.test:{origin.port}")
            arguments = {
                "url": url,
                "kind": "url_text",
                "workspace_id": workspace_id,
                "mutation_id": str(uuid.uuid4()),
            }
            try:
                outcome = await app.research.call(TOOL, token, arguments)
            except ServiceError as error:
                assert case["expect"] == "invalid", (url, error.message)
                assert error.code == "invalid_input" and error.field == "url", url
                outcomes["invalid"] = outcomes.get("invalid", 0) + 1
                continue
            data = outcome.output.wire()
            assert_valid_output(TOOL, data)
            result = data["retrieval"]["result"]
            expected = {
                "unsafe_url": ("blocked", "unsafe_url"),
                "not_found": ("unavailable", "not_found"),
            }
            assert (result["status"], result["reason"]) == expected[case["expect"]], (url, result)
            assert (
                data["retrieval"]["evidence"] is None and result["provenance"]["source_url"] is None
            )
            outcomes[case["expect"]] = outcomes.get(case["expect"], 0) + 1
    with app.store.db.read() as conn:
        written = conn.execute(sa.select(sa.func.count()).select_from(mutations)).scalar_one()
    app.store.close()
    assert written == len(CASES) - outcomes.get("invalid", 0)  # refused input writes nothing
    assert canary.connections == 0
    assert guard.strays == []
    assert sum(outcomes.values()) == len(CASES) >= 100


class _OriginAware:
    """The canary resolver, except the admitted origin's own name (for redirect cases)."""

    def __init__(self, inner: CanaryResolver, origin: HTTPSOrigin) -> None:
        self.inner = inner
        self.origin = origin

    async def resolve(self, host: str, port: int):
        import ipaddress

        if host == "origin.test":
            return [ipaddress.ip_address("127.0.0.1")]
        return await self.inner.resolve(host, port)
