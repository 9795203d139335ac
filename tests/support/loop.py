"""The research loop of issue 6's acceptance, written once and driven through any surface.

Retrieve three sources (one fails), put them in a project, seal, read the corpus back
(`partial`, the note present), change one source and retrieve again (a new evidence
revision), seal again (a new corpus revision), and read both corpus revisions and both
evidence revisions, getting exactly the original bytes for the old ones.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route

Caller = Callable[[str, dict[str, Any]], Awaitable[tuple[dict, int | None]]]
P = "sosoapi_research_"


def page(words: str) -> bytes:
    body = "".join(f"<p>{words} paragraph {i} has several plain words in it.</p>" for i in range(8))
    head = f"<html lang='en'><head><title>{words}</title></head>"
    return f"{head}<body><article>{body}</article></body></html>".encode()


async def research_loop(raw_call: Caller, origin: HTTPSOrigin, ws: str) -> None:
    async def call(tool: str, **arguments: Any) -> tuple[dict, int | None]:
        data, revision = await raw_call(tool, {"workspace_id": ws, **arguments})
        assert_valid_output(tool, data)
        return data, revision

    def key() -> str:
        return str(uuid.uuid4())

    async def retrieve(path: str) -> dict:
        data, _ = await call(
            P + "evidence_retrieve", url=origin.url(path), kind="url_text", mutation_id=key()
        )
        return data["retrieval"]

    origin.routes["/a"] = Route(page("Alpha"))
    origin.routes["/b"] = Route(page("Bravo"))
    a, b, gone = await retrieve("/a"), await retrieve("/b"), await retrieve("/missing")
    assert gone["result"]["reason"] == "not_found" and gone["evidence"] is None
    ids = [a["evidence"]["evidence_id"], b["evidence"]["evidence_id"]]

    project, _ = await call(P + "projects_create", mutation_id=key(), title="Loop")
    pid = project["project"]["id"]
    added, _ = await call(
        P + "projects_add_sources",
        mutation_id=key(),
        project_id=pid,
        evidence_ids=ids,
        missing_notes=["/missing answered 404"],
    )
    assert added["project"]["revision"] == 2
    sealed, revision = await call(P + "corpora_seal", mutation_id=key(), project_id=pid)
    assert revision == sealed["revision"] == 1
    snapshot = sealed["snapshot"]
    assert snapshot["coverage"] == "partial"
    assert snapshot["missing_sources"] == ["/missing answered 404"]
    assert snapshot["evidence"] == [{"evidence_id": i, "revision": 1} for i in ids]
    assert snapshot["project_revision"] == 2
    read, revision = await call(P + "corpora_get", id=snapshot["id"])
    assert read["snapshot"] == snapshot and revision == 1

    first = (await call(P + "evidence_get", evidence_id=ids[0]))[0]["evidence"]
    origin.routes["/a"] = Route(page("Alpha changed"))
    changed = await retrieve("/a")
    assert changed["evidence"] == {"evidence_id": ids[0], "revision": 2}
    resealed, revision = await call(
        P + "corpora_seal", mutation_id=key(), project_id=pid, corpus_id=snapshot["id"]
    )
    assert revision == 2 and resealed["snapshot"]["id"] == snapshot["id"]
    assert resealed["snapshot"]["evidence"][0] == {"evidence_id": ids[0], "revision": 2}

    old, r1 = await call(P + "corpora_get", id=snapshot["id"], revision=1)
    new, r2 = await call(P + "corpora_get", id=snapshot["id"])
    assert (old["snapshot"], r1) == (snapshot, 1)
    assert (new["snapshot"], r2) == (resealed["snapshot"], 2)
    again = (await call(P + "evidence_get", evidence_id=ids[0], revision=1))[0]["evidence"]
    assert {**again, "latest_revision": 1} == first  # exactly the original content
    latest = (await call(P + "evidence_get", evidence_id=ids[0]))[0]["evidence"]
    assert latest["revision"] == latest["latest_revision"] == 2
    assert "Alpha changed" in latest["text"] and "Alpha changed" not in first["text"]
    assert latest["content_digest"] != first["content_digest"]
