"""The evidence tools over the HTTP API of a real `sosoapi serve`, and from the CLI."""

from __future__ import annotations

import json
import uuid

import httpx

from tests.support.contract import assert_valid_output
from tests.support.evidence_tools import evidence_tools_scenario, html
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, api_caller, cli


async def test_search_quote_and_diff_over_http(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    async with httpx.AsyncClient(base_url=served.base, headers=headers, timeout=30) as http:
        await evidence_tools_scenario(api_caller(http), origin, initialised["WORKSPACE_ID"])
        refused = await http.post(
            "/research-api/evidence/quote",
            json={"workspace_id": initialised["WORKSPACE_ID"], "quote": "x"},
        )
        assert refused.status_code == 400
        assert refused.json()["type"].endswith("/invalid-input")
        assert "evidence_id" in refused.json()["detail"]


def test_the_cli_verbs(initialised: dict[str, str], origin: HTTPSOrigin) -> None:
    origin.routes["/cli"] = Route(html("en", "Cli", ["The harbour froze in the long winter."]))
    first = cli(["retrieve", origin.url("/cli"), "--json"], initialised)
    assert first.returncode == 0, first.stderr
    evidence_id = json.loads(first.stdout)["retrieval"]["evidence"]["evidence_id"]
    origin.routes["/cli"] = Route(html("en", "Cli", ["The harbour thawed in the long winter."]))
    assert cli(["retrieve", origin.url("/cli")], initialised).returncode == 0

    found = cli(["evidence", "search", "harbour winter", "--json"], initialised)
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert_valid_output("sosoapi_research_evidence_search", data)
    assert [(r["evidence_id"], r["revision"]) for r in data["results"]] == [(evidence_id, 2)]

    quoted = cli(
        ["evidence", "quote", evidence_id, "the harbour froze", "--revision", "1", "--json"],
        initialised,
    )
    assert quoted.returncode == 0, quoted.stderr
    assert json.loads(quoted.stdout)["verdict"] == "normalized"

    diffed = cli(["evidence", "diff", evidence_id, "--from", "1", "--json"], initialised)
    assert diffed.returncode == 0, diffed.stderr
    changes = json.loads(diffed.stdout)["changes"]
    assert [(c["from_text"], c["to_text"]) for c in changes] == [("froze", "thawed")] * 3

    missing = cli(["evidence", "diff", str(uuid.uuid4()), "--from", "1"], initialised)
    assert missing.returncode == 2 and "not_found" in missing.stderr
