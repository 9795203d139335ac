"""The revisions an export pins are read by their (evidence, revision) pairs, on both
stores: only those, in the order asked, a pair that does not exist left out."""

from __future__ import annotations

from sosoapi.application import Application
from tests.support.calls import args, call
from tests.support.origin import HTTPSOrigin, Route


def _page(words: str) -> bytes:
    return (
        f"<!DOCTYPE html><html><head><title>Tide tables</title></head><body><article>"
        f"<p>The harbour's tide tables were revised: {words}. Each revision of this page "
        f"says more about the tides, the moorings and the pilots who bring ships in.</p>"
        f"</article></body></html>"
    ).encode()


async def test_pinned_revisions_are_read_by_their_pairs(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    evidence_id = ""
    for words in ("spring tides", "neap tides at dawn", "a storm surge in March"):
        origin.routes["/tides"] = Route(_page(words))
        receipt = await call(application, token, args(workspace_id, origin.url("/tides")))
        evidence_id = receipt["evidence"]["evidence_id"]
    assert receipt["evidence"]["revision"] == 3
    pairs = [(evidence_id, 3), ("ev_missing", 1), (evidence_id, 1), (evidence_id, 9)]
    found = application.store.evidence.revisions(workspace_id, pairs)
    assert [(r.evidence_id, r.revision) for r in found] == [(evidence_id, 3), (evidence_id, 1)]
    assert "storm surge" in (found[0].whole or found[0].content)
    assert "spring tides" in (found[1].whole or found[1].content)
    assert application.store.evidence.revisions("ws_other", pairs) == []
