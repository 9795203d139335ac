"""Evidence search, quote check and diff through the service, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.contract.errors import ServiceError
from tests.support.contract import assert_valid_output
from tests.support.evidence_tools import SOURCES, evidence_tools_scenario, html
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"


async def run(app: Application, token: str, tool: str, **arguments: Any) -> dict:
    outcome = await app.research.call(P + tool, token, arguments, transport="http")
    data = outcome.output.wire()
    assert_valid_output(P + tool, data)
    return data


async def test_search_quote_and_diff_through_the_service(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner

    async def call(tool: str, arguments: dict[str, Any]) -> tuple[dict, int | None]:
        outcome = await application.research.call(tool, token, arguments, transport="http")
        return outcome.output.wire(), outcome.corpus_revision

    await evidence_tools_scenario(call, origin, ws)


async def _retrieve(app: Application, token: str, ws: str, url: str) -> str:
    data = await run(
        app,
        token,
        "evidence_retrieve",
        workspace_id=ws,
        url=url,
        kind="url_text",
        mutation_id=str(uuid.uuid4()),
    )
    return data["retrieval"]["evidence"]["evidence_id"]


async def test_roles_scopes_and_workspaces(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """Viewers may read; outsiders see nothing; another workspace's evidence never shows."""
    ws, token = owner
    now = datetime.now(UTC)
    admin = Admin(application.store.auth)
    viewer = admin.mint(admin.create_member(ws, "viewer", "viewer", now), now).token
    scopeless = admin.mint(
        admin.create_member(ws, "scopeless", "owner", now), now, scopes=frozenset()
    ).token
    other_ws = application.store.auth.create_workspace("other", now)
    outsider = admin.mint(admin.create_member(other_ws.id, "outsider", "owner", now), now).token

    language, title, paragraphs = SOURCES["/en-budget"]
    origin.routes["/mine"] = Route(html(language, title, paragraphs))
    mine = await _retrieve(application, token, ws, origin.url("/mine"))
    await _retrieve(application, token, ws, origin.url("/mine"))  # same content: revision 1
    origin.routes["/mine"] = Route(html(language, title + " two", paragraphs))
    await _retrieve(application, token, ws, origin.url("/mine"))
    theirs = await _retrieve(application, outsider, other_ws.id, origin.url("/mine"))

    reads = {
        "evidence_search": {"query": "council budget"},
        "evidence_quote": {"evidence_id": mine, "quote": "approved the budget"},
        "evidence_diff": {"evidence_id": mine, "from_revision": 1},
    }
    for tool, arguments in reads.items():
        await run(application, viewer, tool, workspace_id=ws, **arguments)
        for who, code in ((outsider, "not_found"), (scopeless, "forbidden")):
            with pytest.raises(ServiceError) as caught:
                await run(application, who, tool, workspace_id=ws, **arguments)
            assert caught.value.code == code, (tool, code)
    found = await run(application, token, "evidence_search", workspace_id=ws, query="council")
    assert [r["evidence_id"] for r in found["results"]] == [mine]
    theirs_found = await run(
        application, outsider, "evidence_search", workspace_id=other_ws.id, query="council"
    )
    assert [r["evidence_id"] for r in theirs_found["results"]] == [theirs]
    for tool, arguments in (
        ("evidence_quote", {"evidence_id": mine, "quote": "approved"}),
        ("evidence_diff", {"evidence_id": mine, "from_revision": 1}),
    ):  # my evidence named from their workspace
        with pytest.raises(ServiceError) as caught:
            await run(application, outsider, tool, workspace_id=other_ws.id, **arguments)
        assert caught.value.code == "not_found" and mine in caught.value.message


BAD = [
    ("evidence_search", {"query": "!!! ???"}, "query"),
    ("evidence_search", {"query": "q", "corpus_revision": 1}, "corpus_revision"),
    ("evidence_search", {"query": "q", "cursor": "bm90LWEtY3Vyc29y"}, "cursor"),
    ("evidence_search", {"query": "q", "limit": 51}, "limit"),
    ("evidence_search", {"query": "q" * 501}, "query"),
    ("evidence_quote", {"quote": "q"}, "evidence_id"),
    ("evidence_get", {"evidence_id": str(uuid.uuid4()), "offset": -1}, "offset"),
    ("evidence_get", {"evidence_id": str(uuid.uuid4()), "length": 20_001}, "length"),
    ("evidence_get", {"evidence_id": str(uuid.uuid4()), "length": 0}, "length"),
    ("evidence_quote", {"quote": "q", "corpus_id": str(uuid.uuid4()), "revision": 2}, "revision"),
    (
        "evidence_quote",
        {"quote": "q", "evidence_id": str(uuid.uuid4()), "corpus_revision": 2},
        "corpus_revision",
    ),
    ("evidence_quote", {"quote": "", "evidence_id": str(uuid.uuid4())}, "quote"),
    ("evidence_quote", {"quote": "q" * 2001, "evidence_id": str(uuid.uuid4())}, "quote"),
    ("evidence_diff", {"evidence_id": str(uuid.uuid4()), "from_revision": 0}, "from_revision"),
    ("evidence_diff", {"evidence_id": str(uuid.uuid4())}, "from_revision"),
]


@pytest.mark.parametrize(("tool", "arguments", "field"), BAD, ids=[f"{t}-{f}" for t, _, f in BAD])
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_bad_input_names_the_field_and_the_fix(
    application: Application, owner: tuple[str, str], tool: str, arguments: dict, field: str
) -> None:
    ws, token = owner
    with pytest.raises(ServiceError) as caught:
        await run(application, token, tool, workspace_id=ws, **arguments)
    assert caught.value.code == "invalid_input"
    assert caught.value.field == field and f"`{field}`" in caught.value.message


async def test_unknown_evidence_revision_and_corpus_are_not_found(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/one"] = Route(html("en", "One", ["Only one revision of this page exists."]))
    one = await _retrieve(application, token, ws, origin.url("/one"))
    for tool, arguments, named in (
        ("evidence_diff", {"evidence_id": one, "from_revision": 1, "to_revision": 2}, "revision 2"),
        ("evidence_quote", {"evidence_id": one, "revision": 3, "quote": "x"}, "revision 3"),
        ("evidence_quote", {"corpus_id": str(uuid.uuid4()), "quote": "x"}, "corpus"),
        ("evidence_search", {"corpus_id": str(uuid.uuid4()), "query": "x"}, "corpus"),
    ):
        with pytest.raises(ServiceError) as caught:
            await run(application, token, tool, workspace_id=ws, **arguments)
        assert caught.value.code == "not_found" and named in caught.value.message, tool


async def test_markup_like_text_in_a_source_does_not_hide_words(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """A page about HTML quotes `<script>` and `&amp;`: the words after them stay findable
    on both stores (PostgreSQL's parser once dropped them as markup)."""
    ws, token = owner
    said = "Write &lt;/div&gt;&lt;script&gt;alert(4) then the zeppelin harbour &amp;amp; more"
    origin.routes["/markup"] = Route(html("en", "Escaping", [said]))
    evidence_id = await _retrieve(application, token, ws, origin.url("/markup"))
    for query in ("zeppelin harbour", '"alert 4"', "amp more"):
        found = await run(application, token, "evidence_search", workspace_id=ws, query=query)
        assert [r["evidence_id"] for r in found["results"]] == [evidence_id], query
