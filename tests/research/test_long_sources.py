"""Issue 26: long sources read whole, through the service on SQLite and PostgreSQL.

The receipt keeps the contract's first 20,000 characters; the evidence revision keeps the
whole text (up to SOSOAPI_EVIDENCE_TEXT_MAX) and every caption cue (up to CUES_WHOLE_MAX),
read back in windows; its digest covers the whole text; search, quote and diff see all of
it, with anchors; revisions written before keep their content as it was.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

import pytest
from sqlalchemy import text

from sosoapi.application import Application
from sosoapi.contract.errors import ServiceError
from sosoapi.contract.models import Segment
from sosoapi.research.evidence.reader import window
from sosoapi.store.store import Store
from tests.support.contract import assert_valid_output
from tests.support.evidence_tools import html, vtt
from tests.support.long_sources import (
    LAST_WORD,
    article_html,
    article_paragraphs,
    long_source_scenario,
)
from tests.support.migrations import NOW, WS, at_revision, insert_workspace, stored_content
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"


async def run(app: Application, token: str, tool: str, **arguments: Any) -> dict:
    outcome = await app.research.call(P + tool, token, arguments, transport="http")
    data = outcome.output.wire()
    assert_valid_output(P + tool, data)
    return data


async def _retrieve(
    app: Application, token: str, ws: str, url: str, kind: str = "url_text"
) -> dict:
    data = await run(
        app, token, "evidence_retrieve", workspace_id=ws, url=url, kind=kind,
        mutation_id=str(uuid.uuid4()),
    )  # fmt: skip
    return data["retrieval"]


async def _read_all(app: Application, token: str, ws: str, evidence_id: str) -> dict:
    """Every window in turn: the joined text and the cues of all windows."""
    parts: list[str] = []
    cues: list[dict] = []
    offset: int | None = 0
    while offset is not None:
        got = (
            await run(app, token, "evidence_get", workspace_id=ws, evidence_id=evidence_id,
                      offset=offset)
        )["evidence"]  # fmt: skip
        parts.append(got["text"])
        cues += [c for c in got["segments"] if not cues or c != cues[-1]]
        offset = got["next_offset"]
    return {"text": "".join(parts), "segments": cues, "last": got}


async def test_the_acceptance_scenario_through_the_service(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner

    async def call(tool: str, arguments: dict[str, Any]) -> tuple[dict, int | None]:
        outcome = await application.research.call(tool, token, arguments, transport="http")
        return outcome.output.wire(), outcome.corpus_revision

    await long_source_scenario(call, origin, ws)


async def test_the_digest_covers_the_whole_text(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """A change past the receipt's 20,000 characters is a new revision, and the diff
    shows it with offsets into the whole text and anchors on both sides."""
    ws, token = owner
    origin.routes["/a"] = Route(article_html())
    first = await _retrieve(application, token, ws, origin.url("/a"))
    evidence_id = first["evidence"]["evidence_id"]
    whole = (await _read_all(application, token, ws, evidence_id))["text"]
    got = await run(application, token, "evidence_get", workspace_id=ws, evidence_id=evidence_id)
    digest_of_receipt_text = hashlib.sha256(first["result"]["text"].encode()).hexdigest()
    assert got["evidence"]["content_digest"] != digest_of_receipt_text

    origin.routes["/a"] = Route(article_html().replace(b"frozen harbour", b"thawed harbour"))
    second = await _retrieve(application, token, ws, origin.url("/a"))
    assert second["result"]["text"] == first["result"]["text"]  # the receipts alike
    assert second["evidence"]["revision"] == 2  # yet the evidence changed
    diff = await run(
        application, token, "evidence_diff", workspace_id=ws, evidence_id=evidence_id,
        from_revision=1,
    )  # fmt: skip
    [change] = diff["changes"]
    assert (change["from_text"], change["to_text"]) == ("frozen", "thawed")
    assert change["from_start"] == whole.index("frozen harbour") > 100_000
    old_quote, old_position = change["from_anchor"]["selector"]
    assert old_quote["exact"] == "frozen" and old_position["start"] == change["from_start"]
    new_quote, _ = change["to_anchor"]["selector"]
    assert new_quote["exact"] == "thawed" and new_quote["prefix"].endswith("beside the ")
    assert "#:~:text=thawed" in change["to_anchor"]["text_fragment_url"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("receipt_overrides", [{"evidence_text_max": 30_000}])
async def test_the_whole_text_stops_at_the_configured_bound(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/a"] = Route(article_html())
    got = await _retrieve(application, token, ws, origin.url("/a"))
    read = await _read_all(application, token, ws, got["evidence"]["evidence_id"])
    assert 20_000 < len(read["text"]) <= 30_000 == 30_000
    assert read["text"].endswith(".") and LAST_WORD not in read["text"]
    assert read["last"]["total_length"] == len(read["text"])


async def test_captions_keep_every_cue(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """1,500 cues: the receipt holds the contract's 1,000 (`cues_limited`), the evidence
    all of them; the last cue is quoted `exact` with its times."""
    ws, token = owner
    cues = [
        (f"{i // 60:02d}:{i % 60:02d}.000 --> {i // 60:02d}:{i % 60:02d}.900", f"Cue number {i}.")
        for i in range(1_500)
    ]
    origin.routes["/long.vtt"] = Route(vtt(cues), content_type="text/vtt")
    got = await _retrieve(application, token, ws, origin.url("/long.vtt"), "published_captions")
    assert len(got["result"]["segments"]) == 1_000
    assert "cues_limited" in [got["result"]["reason"], *got["result"]["warnings"]]
    evidence_id = got["evidence"]["evidence_id"]
    read = await _read_all(application, token, ws, evidence_id)
    assert [c["text"] for c in read["segments"]] == [f"Cue number {i}." for i in range(1_500)]
    assert read["text"] == "\n".join(f"Cue number {i}." for i in range(1_500))
    quoted = await run(
        application, token, "evidence_quote", workspace_id=ws, evidence_id=evidence_id,
        quote="Cue number 1499.",
    )  # fmt: skip
    assert quoted["verdict"] == "exact"
    [match] = quoted["matches"]
    assert (match["segment_index"], match["start_ms"], match["end_ms"]) == (
        1499,
        1_499_000,
        1_499_900,
    )


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_offset_past_the_end_is_refused_by_name(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/short"] = Route(html("en", "Short", ["A short page of one sentence."]))
    got = await _retrieve(application, token, ws, origin.url("/short"))
    evidence_id = got["evidence"]["evidence_id"]
    whole = await run(application, token, "evidence_get", workspace_id=ws, evidence_id=evidence_id)
    size = whole["evidence"]["total_length"]
    assert whole["evidence"]["next_offset"] is None and size == len(whole["evidence"]["text"])
    end = await run(
        application, token, "evidence_get", workspace_id=ws, evidence_id=evidence_id, offset=size
    )
    assert end["evidence"]["text"] == "" and end["evidence"]["next_offset"] is None
    with pytest.raises(ServiceError) as caught:
        await run(
            application, token, "evidence_get", workspace_id=ws, evidence_id=evidence_id,
            offset=size + 1,
        )  # fmt: skip
    assert caught.value.code == "invalid_input"
    assert "`offset`" in str(caught.value) and f"from 0 to {size}" in str(caught.value)


async def test_search_words_may_sit_in_different_passages(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    first = "Die Gletscher der Alpen schmelzen seit Jahrzehnten schneller als erwartet."
    filler = [f"Absatz {n} beschreibt das Tal und seine Dörfer im Sommer." for n in range(40)]
    last = "Die Messungen stammen von einem neuen Radar auf dem Gipfel."
    origin.routes["/de"] = Route(html("de", "Eis", [first, *filler, last]))
    got = await _retrieve(application, token, ws, origin.url("/de"))
    found = await run(
        application, token, "evidence_search", workspace_id=ws, query="Gletscher Radar"
    )
    assert [r["evidence_id"] for r in found["results"]] == [got["evidence"]["evidence_id"]]
    texts = [s["text"] for s in found["results"][0]["snippets"]]
    assert any("Gletscher" in t for t in texts) and any("Radar" in t for t in texts), texts
    none = await run(
        application, token, "evidence_search", workspace_id=ws, query="Gletscher Zebra"
    )
    assert none["results"] == []


async def test_a_quote_found_in_another_corpus_source_says_so(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/one"] = Route(html("en", "One", ["The ferry left the island at noon."]))
    origin.routes["/two"] = Route(html("en", "Two", ["The bridge opened to traffic in May."]))
    one = (await _retrieve(application, token, ws, origin.url("/one")))["evidence"]
    two = (await _retrieve(application, token, ws, origin.url("/two")))["evidence"]
    project = await run(application, token, "projects_create", workspace_id=ws, title="P",
                        mutation_id=str(uuid.uuid4()))  # fmt: skip
    project_id = project["project"]["id"]
    await run(
        application, token, "projects_add_sources", workspace_id=ws, project_id=project_id,
        mutation_id=str(uuid.uuid4()),
        evidence_ids=[one["evidence_id"], two["evidence_id"]],
    )  # fmt: skip
    sealed = await run(application, token, "corpora_seal", workspace_id=ws,
                       project_id=project_id, mutation_id=str(uuid.uuid4()))  # fmt: skip
    corpus_id = sealed["snapshot"]["id"]
    misattributed = await run(
        application, token, "evidence_quote", workspace_id=ws, evidence_id=one["evidence_id"],
        corpus_id=corpus_id, quote="The bridge opened to traffic in May.",
    )  # fmt: skip
    assert misattributed["verdict"] == "absent"
    elsewhere = misattributed["found_elsewhere"]
    assert len(elsewhere) == 3  # `html` gives each paragraph three times
    assert {m["evidence_id"] for m in elsewhere} == {two["evidence_id"]}
    exact = {m["anchor"]["selector"][0]["exact"] for m in elsewhere}
    assert exact == {"The bridge opened to traffic in May."}
    right = await run(
        application, token, "evidence_quote", workspace_id=ws, evidence_id=two["evidence_id"],
        corpus_id=corpus_id, quote="The bridge opened to traffic in May.",
    )  # fmt: skip
    assert right["verdict"] == "exact" and right["found_elsewhere"] == []


def test_windows_stop_where_a_reader_would() -> None:
    paragraphs = article_paragraphs()
    whole = "\n\n".join(paragraphs)
    end, _ = window(whole, [], 0, 20_000)
    assert whole[end : end + 2] == "\n\n"  # at a paragraph end
    no_breaks = " ".join(paragraphs)
    end, _ = window(no_breaks, [], 0, 20_000)
    assert no_breaks[end - 1] == "." and 16_000 <= end <= 20_000  # at a sentence end
    words = "word " * 10_000
    end, _ = window(words, [], 5, 20_000)
    assert words[end] == " " and words[end - 4 : end] == "word"  # at a word
    assert window(whole, [], len(whole), 100) == (len(whole), [])
    cues = [Segment(start_ms=i, end_ms=i + 1, text=f"c{i}") for i in range(1_200)]
    joined = "\n".join(s.text for s in cues)
    end, held = window(joined, cues, 0, 20_000)
    assert len(held) == 1_000 and end == joined.index("c999") + 4


def test_existing_revisions_are_left_as_they_were(database_url: str) -> None:
    """Migration 0014 adds the whole-text column; a revision written before it keeps its
    content and digest, and reads back whole as it is."""
    db = at_revision(database_url, "0015")
    content = stored_content("The harbour froze in the long winter. " * 500, "en")
    with db.write() as conn:
        insert_workspace(conn)
        conn.execute(
            text(
                "INSERT INTO evidence (id, workspace_id, identity, kind, source_url, language, "
                "latest_revision, created_at, updated_at) VALUES ('e1', :ws, 'e1', 'url_text', "
                "NULL, 'en', 1, :now, :now)"
            ),
            {"ws": WS, "now": NOW},
        )
        conn.execute(
            text(
                "INSERT INTO evidence_revisions (evidence_id, revision, digest, content, "
                "created_at) VALUES ('e1', 1, :d, :c, :now)"
            ),
            {"d": "a" * 64, "c": content, "now": NOW},
        )
    db.dispose()
    store = Store(database_url)  # migrates to head
    try:
        record = store.evidence.revision(WS, "e1", None)
        assert record is not None
        assert (record.content, record.digest, record.whole) == (content, "a" * 64, None)
        body = json.loads(content)["text"]
        end, _ = window(body, [], 0)
        assert end == len(body)
    finally:
        store.close()
