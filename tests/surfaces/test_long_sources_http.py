"""Issue 26's acceptance over the HTTP API of a real `sosoapi serve` (SQLite and
PostgreSQL), and reading on from the CLI with `sosoapi evidence get ID --offset N`."""

from __future__ import annotations

import json

import httpx

from tests.support.contract import assert_valid_output
from tests.support.long_sources import LAST_SENTENCE, article_html, long_source_scenario
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, api_caller, cli


async def test_a_long_article_is_read_whole_over_http(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    async with httpx.AsyncClient(base_url=served.base, headers=headers, timeout=60) as http:
        await long_source_scenario(api_caller(http), origin, initialised["WORKSPACE_ID"])


def test_the_cli_reads_on_from_an_offset(initialised: dict[str, str], origin: HTTPSOrigin) -> None:
    origin.routes["/long"] = Route(article_html())
    first = cli(["retrieve", origin.url("/long"), "--json"], initialised)
    assert first.returncode == 0, first.stderr
    retrieval = json.loads(first.stdout)["retrieval"]
    evidence_id = retrieval["evidence"]["evidence_id"]
    offset: int | None = len(retrieval["result"]["text"])
    read = [retrieval["result"]["text"]]
    while offset is not None:
        got = cli(["evidence", "get", evidence_id, "--offset", str(offset), "--json"], initialised)
        assert got.returncode == 0, got.stderr
        data = json.loads(got.stdout)
        assert_valid_output("sosoapi_research_evidence_get", data)
        read.append(data["evidence"]["text"])
        offset = data["evidence"]["next_offset"]
    whole = "".join(read)
    assert whole.endswith(LAST_SENTENCE) and len(whole) == data["evidence"]["total_length"]
    refused = cli(["evidence", "get", evidence_id, "--offset", str(len(whole) + 1)], initialised)
    assert refused.returncode == 2 and "offset" in refused.stderr
