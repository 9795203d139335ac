"""A cue's speaker label is not spoken words: a quote of what was said matches the WebVTT
copy (voice spans rendered "Name: ") as it matches the SubRip one, the match names the
speaker, and search indexes the name as a speaker, not as words of the sentence."""

from __future__ import annotations

import uuid
from typing import Any

from sosoapi.application import Application
from sosoapi.contract.models import Provenance, RetrieveResult, Segment
from sosoapi.extract.passages import cue_spans, speakers
from sosoapi.research.evidence.passages import passages_of
from sosoapi.research.retrieval.finished import finished
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"
VTT = (
    b"WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Jane Whitaker>We will defer the item "
    b"until the summer recess, as the committee asked.\n\n00:00:04.500 --> 00:00:07.000\n"
    b"<v Tom>Agreed.\n"
)
SRT = (
    b"1\n00:00:01,000 --> 00:00:04,000\nWe will defer the item until the summer recess, as "
    b"the committee asked.\n\n2\n00:00:04,500 --> 00:00:07,000\nAgreed.\n"
)
SPOKEN = "We will defer the item until the summer recess, as the committee asked. Agreed."


async def _call(app: Application, token: str, tool: str, **arguments: Any) -> dict:
    outcome = await app.research.call(P + tool, token, arguments, transport="stdio")
    data = outcome.output.wire()
    assert_valid_output(P + tool, data)
    return data


async def _read(app: Application, token: str, ws: str, url: str) -> str:
    receipt = await _call(
        app, token, "evidence_retrieve", workspace_id=ws, url=url,
        kind="published_captions", mutation_id=str(uuid.uuid4()),
    )  # fmt: skip
    return receipt["retrieval"]["evidence"]["evidence_id"]


async def test_a_quote_of_the_spoken_words_matches_both_copies(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/talk.vtt"] = Route(VTT, content_type="text/vtt")
    origin.routes["/talk.srt"] = Route(SRT, content_type="application/x-subrip")
    vtt = await _read(application, token, ws, origin.url("/talk.vtt"))
    srt = await _read(application, token, ws, origin.url("/talk.srt"))
    verdicts = {}
    for evidence_id in (vtt, srt):
        quoted = await _call(
            application, token, "evidence_quote", workspace_id=ws, evidence_id=evidence_id,
            quote=SPOKEN,
        )  # fmt: skip
        verdicts[evidence_id] = quoted
    assert verdicts[srt]["verdict"] == "normalized"
    assert verdicts[vtt]["verdict"] == "normalized"  # was absent (similarity 0.82)
    (match,) = verdicts[vtt]["matches"]
    assert match["speakers"] == ["Jane Whitaker", "Tom"]
    assert match["text"].startswith("We will defer") and match["text"].endswith("Agreed.")
    assert verdicts[srt]["matches"][0]["speakers"] == []
    named = await _call(
        application, token, "evidence_quote", workspace_id=ws, evidence_id=vtt,
        quote="Jane Whitaker: We will defer the item",
    )  # fmt: skip
    assert named["verdict"] == "exact"  # quoting the label too still works


def _captions(lines: list[str]) -> RetrieveResult:
    text = "\n".join(lines)
    return RetrieveResult(
        kind="published_captions", status="ready", text=text, title=None, description=None,
        segments=[Segment(start_ms=i * 1000, end_ms=i * 1000 + 900, text=t)
                  for i, t in enumerate(lines)],
        provenance=Provenance(
            source_url="https://example.com/t.vtt", retrieved_at="2026-01-01T00:00:00Z",
            mime_type="text/vtt", content_kind="published_caption_file",
            caption_format="webvtt", language="en", language_source="publisher_declared",
        ),
        reason=None, warnings=[], retry_after_seconds=None,
    )  # fmt: skip


def test_search_indexes_the_speaker_apart_from_the_sentence() -> None:
    result = _captions(["Jane Whitaker: We will defer the item.", "no speaker here: lower case"])
    rows = passages_of(finished(result))
    assert [(r.part, r.body) for r in rows] == [
        ("speaker", "Jane Whitaker"),
        ("text", "We will defer the item."),
        ("text", "no speaker here: lower case"),
    ]
    text_row = rows[1]
    assert result.text[text_row.start : text_row.end] == "We will defer the item."


def test_only_a_label_at_the_start_of_a_cue_is_a_speaker() -> None:
    text = "Ada: Hello there\nThe plan is simple: wait.\nSPEAKER 2: Yes"
    segments = [(line, 0, 1) for line in text.split("\n")]
    found = speakers(text, cue_spans(text, segments))
    assert [(s.name, text[s.start : s.end]) for s in found] == [
        ("Ada", "Ada: "),
        ("SPEAKER 2", "SPEAKER 2: "),
    ]
