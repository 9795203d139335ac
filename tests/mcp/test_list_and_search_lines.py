"""List and search content name each evidence by kind and source when it has no title,
and a search that matches only a description still shows where (a description snippet)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from sosoapi.application import Application
from sosoapi.mcp.presenters import render, summary
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"
CAPTIONS = b"WEBVTT\n\n00:01.000 --> 00:02.000\nThe tide came in early.\n"
PAGE = (
    b"<!doctype html><html lang=en><head><title>Harbour notes</title>"
    b'<meta name="description" content="A walk along the lighthouse pier at dawn.">'
    b"</head><body><main><p>The ferries were late again on Monday morning.</p>"
    b"<p>Fishermen mended their nets on the quay while the gulls waited.</p></main>"
    b"</body></html>"
)


async def _call(app: Application, token: str, tool: str, **arguments: Any) -> Any:
    outcome = await app.research.call(P + tool, token, arguments, transport="stdio")
    assert_valid_output(P + tool, outcome.output.wire())
    return outcome


async def test_untitled_evidence_is_named_by_kind_and_source(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, tmp_path: Path
) -> None:
    ws, token = owner
    origin.routes["/tide.vtt"] = Route(CAPTIONS, content_type="text/vtt")
    url = origin.url("/tide.vtt")
    await _call(
        application, token, "evidence_retrieve", workspace_id=ws, url=url,
        kind="published_captions", mutation_id=str(uuid.uuid4()),
    )  # fmt: skip
    note = tmp_path / "note.txt"
    note.write_text("The tide tables for the harbour, copied by hand.")
    await _call(
        application, token, "evidence_upload", workspace_id=ws, path=str(note),
        kind="url_text", mutation_id=str(uuid.uuid4()),
    )  # fmt: skip
    listed = await _call(application, token, "evidence_list", workspace_id=ws)
    _, parts = summary(listed.output)
    titles = dict(parts)["titles"].splitlines()
    assert any(f"published_captions {url}: (no title)" in t for t in titles), titles
    assert any("url_text an uploaded file: (no title)" in t for t in titles), titles
    found = await _call(application, token, "evidence_search", workspace_id=ws, query="tide")
    _, parts = summary(found.output)
    assert f"published_captions {url}: (no title)" in dict(parts)["titles"]
    assert f"published_captions {url}" in render(found.output)


async def test_a_description_only_match_has_a_description_snippet(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/harbour"] = Route(PAGE)
    await _call(
        application, token, "evidence_retrieve", workspace_id=ws, url=origin.url("/harbour"),
        kind="url_text", mutation_id=str(uuid.uuid4()),
    )  # fmt: skip
    found = await _call(application, token, "evidence_search", workspace_id=ws, query="lighthouse")
    (result,) = found.output.wire()["results"]
    (snippet,) = result["snippets"]
    description = "A walk along the lighthouse pier at dawn."
    assert snippet["field"] == "description"
    assert description[snippet["start"] : snippet["end"]] == snippet["text"]
    assert "lighthouse" in snippet["text"]
    _, parts = summary(found.output)
    assert "description [0:" in dict(parts)["snippets"]
    in_text = await _call(application, token, "evidence_search", workspace_id=ws, query="ferries")
    assert [s["field"] for s in in_text.output.wire()["results"][0]["snippets"]] == ["text"]
