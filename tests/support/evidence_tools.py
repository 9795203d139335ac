"""Search, quote check and diff, written once and driven through any surface.

Sources in English, German, Norwegian and Arabic are read from a real HTTPS origin;
searches in each language must find the one source that says it (the same answer on
SQLite and PostgreSQL, since every store runs this same scenario); a quote check tells
exact, normalized, approximate and absent apart and points into the original text; a
source changes and the diff shows what changed; a corpus keeps searching and quoting
the revision it pinned.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from sosoapi.testing.pages import article_html
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route

Caller = Callable[[str, dict[str, Any]], Awaitable[tuple[dict, int | None]]]
P = "sosoapi_research_"

SOURCES = {
    "/en-budget": (
        "en",
        "Council budget",
        [
            "The city council approved the budget for public health after a long debate.",
            'The mayor said "we will act now" and it\'s done \u2014 finally\u2026',
            "Nurses and doctors welcomed the decision at the town hall.",
        ],
    ),
    "/en-school": (
        "en",
        "New school",
        [
            "A new school opened its doors to four hundred pupils this autumn.",
            "Teachers praised the bright classrooms and the large library.",
        ],
    ),
    "/de-altstadt": (
        "de",
        "Altstadt",
        [
            "Die Häuser in der Altstadt wurden nach dem Krieg wieder auf&shy;ge&shy;baut.",
            "Der Stadtrat beschloss den Haushalt für die öffentliche Gesundheit.",
        ],
    ),
    "/no-bibliotek": (
        "no",
        "Biblioteket",
        [
            "Bibliotekene i Tromsø låner ut bøker til alle innbyggere.",
            "Kommunestyret vedtok budsjettet for folkehelse etter en lang debatt.",
        ],
    ),
    "/ar-majlis": (
        "ar",
        "المجلس البلدي",
        [
            "وافق المجلس البلدي على ميزانية الصحة العامة بعد نقاش طويل.",
            "المكتبة العامة في المدينة تعير الكتب للجميع.",
        ],
    ),
}
# query -> the one source that must come first (and be the only result)
SEARCHES = {
    "public health budget debate": "/en-budget",  # the captions have all but "debate"
    "budgets debates": "/en-budget",  # stemmed on both stores
    '"large library"': "/en-school",
    "Häuser Altstadt": "/de-altstadt",
    "hauser altstadt": "/de-altstadt",  # diacritics folded on both stores
    "wieder aufgebaut": "/de-altstadt",  # the page hyphenates it with soft hyphens
    "Tromsø bøker": "/no-bibliotek",
    '"vedtok budsjettet"': "/no-bibliotek",
    "ميزانية الصحة": "/ar-majlis",
    "مِيزَانِيَّة": "/ar-majlis",  # with short-vowel marks
}
CUES = [
    ("00:00.000 --> 00:02.000", "We approved the budget"),
    ("00:02.000 --> 00:04.500", "for public health today."),
    ("00:04.500 --> 00:07.000", "Questions came from the floor."),
]


html = article_html  # the page the scenario serves (bench/fairness.py serves it too)


def vtt(cues: list[tuple[str, str]]) -> bytes:
    return ("WEBVTT\n\n" + "\n\n".join(f"{t}\n{text}" for t, text in cues) + "\n").encode()


async def evidence_tools_scenario(raw_call: Caller, origin: HTTPSOrigin, ws: str) -> None:
    async def call(tool: str, **arguments: Any) -> dict:
        data, _ = await raw_call(P + tool, {"workspace_id": ws, **arguments})
        assert_valid_output(P + tool, data)
        return data

    async def retrieve(path: str, kind: str = "url_text") -> str:
        data = await call(
            "evidence_retrieve", url=origin.url(path), kind=kind, mutation_id=str(uuid.uuid4())
        )
        assert data["retrieval"]["result"]["status"] == "ready", data
        return data["retrieval"]["evidence"]["evidence_id"]

    async def text_of(evidence_id: str, revision: int | None = None) -> str:
        extra = {"revision": revision} if revision else {}
        return (await call("evidence_get", evidence_id=evidence_id, **extra))["evidence"]["text"]

    ids: dict[str, str] = {}
    for path, (language, title, paragraphs) in SOURCES.items():
        origin.routes[path] = Route(html(language, title, paragraphs))
        ids[path] = await retrieve(path)
    origin.routes["/talk.vtt"] = Route(vtt(CUES), content_type="text/vtt")
    talk = await retrieve("/talk.vtt", "published_captions")

    for query, path in SEARCHES.items():
        found = (await call("evidence_search", query=query))["results"]
        assert [r["evidence_id"] for r in found] == [ids[path]], (query, found)
        top = found[0]
        assert top["revision"] == 1 and top["title"] == SOURCES[path][1]
        text = await text_of(top["evidence_id"])
        assert top["snippets"], query
        for s in top["snippets"]:
            assert text[s["start"] : s["end"]] == s["text"] and s["start_ms"] is None

    both = (await call("evidence_search", query="budget"))["results"]
    assert {r["evidence_id"] for r in both} == {ids["/en-budget"], talk}
    captions = await call("evidence_search", query="floor", kind="published_captions")
    [hit] = captions["results"]
    assert hit["evidence_id"] == talk
    assert [(s["text"], s["start_ms"], s["end_ms"]) for s in hit["snippets"]] == [
        ("Questions came from the floor.", 4500, 7000)
    ]
    assert (await call("evidence_search", query="floor", kind="url_text"))["results"] == []
    assert (await call("evidence_search", query="zebra"))["results"] == []

    seen, cursor = [], None
    while True:
        extra = {"cursor": cursor} if cursor else {}
        page = await call("evidence_search", query="the", limit=1, **extra)
        seen += [r["evidence_id"] for r in page["results"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) >= 3  # every page new, none repeated

    await _quotes(call, ids["/en-budget"], talk, await text_of(ids["/en-budget"]))
    await _diff_and_corpus(call, origin, retrieve, text_of, ids["/en-budget"], talk)


async def _quotes(call: Callable[..., Awaitable[dict]], doc: str, talk: str, text: str) -> None:
    said = "The city council approved the budget for public health after a long debate."
    exact = await call("evidence_quote", evidence_id=doc, quote=said)
    assert exact["verdict"] == "exact" and exact["closest"] is None
    assert all(text[m["start"] : m["end"]] == said == m["text"] for m in exact["matches"])
    assert len(exact["matches"]) == 3  # the paragraph stands three times

    loose = "THE MAYOR SAID \u201cwe will   act now\u201d and it\u2019s done - finally..."
    normalized = await call("evidence_quote", evidence_id=doc, quote=loose)
    assert normalized["verdict"] == "normalized"
    first = normalized["matches"][0]
    assert first["text"] == 'The mayor said "we will act now" and it\'s done \u2014 finally\u2026'
    assert text[first["start"] : first["end"]] == first["text"]

    misquoted = "The city council rejected the budget for public health after a long debate."
    approximate = await call("evidence_quote", evidence_id=doc, quote=misquoted)
    assert approximate["verdict"] == "approximate"
    [near] = approximate["matches"]
    assert "approved the budget" in near["text"] and 0.85 <= near["similarity"] < 1
    assert text[near["start"] : near["end"]] == near["text"]

    absent = await call("evidence_quote", evidence_id=doc, quote="Aliens landed on the roof.")
    assert absent["verdict"] == "absent" and absent["matches"] == []

    spanning = await call("evidence_quote", evidence_id=talk, quote="the budget for public health")
    assert spanning["verdict"] == "normalized"  # the cues are joined by a line break
    [m] = spanning["matches"]
    assert (m["segment_index"], m["start_ms"], m["end_ms"]) == (0, 0, 4500)
    assert m["text"] == "the budget\nfor public health"


async def _diff_and_corpus(call, origin, retrieve, text_of, doc: str, talk: str) -> None:
    project = (await call("projects_create", mutation_id=str(uuid.uuid4()), title="Budget"))[
        "project"
    ]
    await call(
        "projects_add_sources",
        mutation_id=str(uuid.uuid4()),
        project_id=project["id"],
        evidence_ids=[doc],
    )
    sealed = await call("corpora_seal", mutation_id=str(uuid.uuid4()), project_id=project["id"])
    corpus = sealed["snapshot"]["id"]

    language, _, paragraphs = SOURCES["/en-budget"]
    changed = [p.replace("approved", "rejected") for p in paragraphs]
    origin.routes["/en-budget"] = Route(html(language, "Council budget rejected", changed))
    assert await retrieve("/en-budget") == doc
    old, new = await text_of(doc, 1), await text_of(doc)

    diff = await call("evidence_diff", evidence_id=doc, from_revision=1)
    assert (diff["from_revision"], diff["to_revision"]) == (1, 2)
    assert diff["title_change"] == {
        "from_text": "Council budget",
        "to_text": "Council budget rejected",
    }
    assert diff["description_change"] is None and diff["segment_changes"] is None
    assert [(c["op"], c["from_text"], c["to_text"]) for c in diff["changes"]] == [
        ("replace", "approved", "rejected")
    ] * 3
    for c in diff["changes"]:
        assert old[c["from_start"] : c["from_end"]] == c["from_text"]
        assert new[c["to_start"] : c["to_end"]] == c["to_text"]
    assert diff["stats"]["chars_added"] == diff["stats"]["chars_removed"] == 24
    assert 0.95 < diff["stats"]["unchanged_ratio"] < 1

    latest = (await call("evidence_search", query="approved council"))["results"]
    assert latest == []  # the latest revision no longer says it
    pinned = (await call("evidence_search", query="approved council", corpus_id=corpus))["results"]
    assert [(r["evidence_id"], r["revision"]) for r in pinned] == [(doc, 1)]
    said = "The city council approved the budget"
    quoted = await call("evidence_quote", corpus_id=corpus, quote=said)
    assert quoted["verdict"] == "exact" and {m["revision"] for m in quoted["matches"]} == {1}

    retimed = [(t.replace("00:04.500", "00:05.000"), text) for t, text in CUES[:2]] + [
        ("00:05.000 --> 00:07.000", "Questions came from the floor."),
        ("00:07.000 --> 00:09.000", "The meeting closed."),
    ]
    origin.routes["/talk.vtt"] = Route(vtt(retimed), content_type="text/vtt")
    assert await retrieve("/talk.vtt", "published_captions") == talk
    cues = (await call("evidence_diff", evidence_id=talk, from_revision=1, to_revision=2))[
        "segment_changes"
    ]
    assert [(c["op"], c["from_index"], c["to_index"], c["text"]) for c in cues] == [
        ("retimed", 1, 1, "for public health today."),
        ("retimed", 2, 2, "Questions came from the floor."),
        ("added", None, 3, "The meeting closed."),
    ]
    assert (cues[1]["from_start_ms"], cues[1]["to_start_ms"]) == (4500, 5000)
