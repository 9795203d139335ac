"""What a page declares can never make its evidence unreadable (issue 35, item 5).

Through the service on SQLite and PostgreSQL, from the loopback origin: a page whose
`<link rel="canonical">` is 5,000 characters long, and one whose JSON-LD nests 5,000
deep, are retrieved `ready` and read back by `evidence_get` (every output validated
against the contract); before the fix the first answered 500 on every read and the
second settled `unavailable` with a RecursionError.
"""

from __future__ import annotations

import json
from typing import Any

from sosoapi.application import Application
from tests.support.calls import args, call, run
from tests.support.origin import HTTPSOrigin, Route

GET = "sosoapi_research_evidence_get"
PROSE = (
    "The harbour froze in the long winter, and the ferries stopped for six weeks while "
    "the town waited for the ice to break. "
) * 4


def _page(head: str) -> bytes:
    body = "".join(f"<p>{n}. {PROSE}</p>" for n in range(4))
    return (
        f"<html lang='en'><head><meta charset='utf-8'><title>Frozen harbour</title>{head}"
        f"</head><body><article>{body}</article></body></html>"
    ).encode()


async def _citation(app: Application, token: str, ws: str, url: str) -> dict[str, Any]:
    receipt = await call(app, token, args(ws, url))
    assert receipt["result"]["status"] == "ready", receipt
    evidence = receipt["evidence"]
    data, _ = await run(
        app, token, GET, {"workspace_id": ws, "evidence_id": evidence["evidence_id"]}
    )
    assert data["evidence"]["text"].startswith("0. The harbour froze")
    citation: dict[str, Any] = data["evidence"]["citation"]
    return citation


async def test_an_over_long_canonical_url_leaves_the_evidence_readable(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    canonical = "https://news.example/" + "a" * 5_000
    origin.routes["/long"] = Route(
        _page(
            f'<link rel="canonical" href="{canonical}">'
            '<meta property="og:url" content="https://news.example/frozen-harbour">'
            f'<meta name="citation_publisher" content="{"P" * 5_000}">'
        )
    )
    citation = await _citation(application, token, ws, origin.url("/long"))
    # The over-long link is dropped, not cut (a cut URL names another page): the next
    # source of the field is taken.
    assert citation["canonical_url"] == {
        "value": "https://news.example/frozen-harbour",
        "source": "opengraph",
        "key": "og:url",
    }
    assert citation["publisher"]["value"] == "P" * 500


async def test_json_ld_nested_5000_deep_is_data(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    deep = "[" * 5_000 + "]" * 5_000
    article = (
        '{"@type": "NewsArticle", "author": {"@type": "Person", "name": "Ada \\u0000Lovelace'
        '\\ud800"}, "datePublished": "2024-05-01", "about": ' + deep + "}"
    )
    origin.routes["/deep"] = Route(_page(f'<script type="application/ld+json">{article}</script>'))
    citation = await _citation(application, token, ws, origin.url("/deep"))
    # A NUL and a lone surrogate from JSON escapes become U+FFFD: no store holds them.
    assert citation["authors"]["value"] == ["Ada \ufffdLovelace\ufffd"]
    assert citation["published"] == {
        "value": "2024-05-01",
        "source": "json_ld",
        "key": "datePublished",
    }
    json.dumps(citation).encode("utf-8")  # storable and sendable as it stands
