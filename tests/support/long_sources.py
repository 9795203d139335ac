"""A long article read whole, written once and driven through any surface.

A 120,000-character article is retrieved through the real egress path; its receipt keeps
the contract's first 20,000 characters (`text_limited`), and its evidence revision keeps
the whole text: read to its last character in windows, a sentence from its end quoted
`exact` with a selector pair that re-finds exactly that span, and a search for a word of
its first paragraph and a word of its last finding it.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route

Caller = Callable[[str, dict[str, Any]], Awaitable[tuple[dict, int | None]]]
P = "sosoapi_research_"
ARTICLE_CHARS = 120_000
FIRST_WORD = "aurora"  # only in the first paragraph
LAST_WORD = "zeppelin"  # only in the last paragraph
LAST_SENTENCE = "The zeppelin finally landed beside the frozen harbour at dawn."
_WORDS = [
    *("river", "council", "harvest", "lantern", "meadow", "signal", "copper", "quarry"),
    *("orchard", "ledger", "compass", "valley", "thunder", "market", "bridge", "winter"),
    *("garden", "sailor", "archive", "tower"),
]


def _paragraph(n: int) -> str:
    """A paragraph of its own (its number spelled into the words), about 500 characters."""
    words = [_WORDS[(n * 7 + i * 3) % len(_WORDS)] for i in range(60)]
    sentences = [" ".join(words[i : i + 12]).capitalize() + "." for i in range(0, 60, 12)]
    return f"Section {n}. " + " ".join(sentences)


def article_paragraphs() -> list[str]:
    paragraphs = [f"The {FIRST_WORD} shone over the northern valley as the survey began."]
    n = 0
    while sum(len(p) + 2 for p in paragraphs) < ARTICLE_CHARS:
        n += 1
        paragraphs.append(_paragraph(n))
    paragraphs.append(f"Something rose above the hills at night. {LAST_SENTENCE}")
    return paragraphs


def article_html() -> bytes:
    body = "".join(f"<p>{p}</p>" for p in article_paragraphs())
    head = "<html lang='en'><head><meta charset='utf-8'><title>The long survey</title></head>"
    return f"{head}<body><article>{body}</article></body></html>".encode()


async def long_source_scenario(raw_call: Caller, origin: HTTPSOrigin, ws: str) -> dict[str, Any]:
    """Run the scenario; returns the quote's match (its anchor) for a browser check."""

    async def call(tool: str, **arguments: Any) -> dict:
        data, _ = await raw_call(P + tool, {"workspace_id": ws, **arguments})
        assert_valid_output(P + tool, data)
        return data

    origin.routes["/long-survey"] = Route(article_html())
    receipt = await call(
        "evidence_retrieve",
        url=origin.url("/long-survey"),
        kind="url_text",
        mutation_id=str(uuid.uuid4()),
    )
    result = receipt["retrieval"]["result"]
    assert result["status"] in ("ready", "partial"), result
    assert "text_limited" in [result["reason"], *result["warnings"]], result
    assert len(result["text"]) <= 20_000 and LAST_WORD not in result["text"]
    evidence_id = receipt["retrieval"]["evidence"]["evidence_id"]

    windows: list[str] = []
    offset: int | None = 0
    while offset is not None:
        got = (await call("evidence_get", evidence_id=evidence_id, offset=offset))["evidence"]
        assert got["offset"] == offset and len(got["text"]) <= 20_000
        windows.append(got["text"])
        offset = got["next_offset"]
        assert len(windows) < 20, "the windows must reach the end"
    whole = "".join(windows)
    assert len(whole) == got["total_length"] >= ARTICLE_CHARS
    assert whole.startswith(f"The {FIRST_WORD} shone") and whole.endswith(LAST_SENTENCE)
    assert windows[0] == result["text"][: len(windows[0])]
    # every window but the last ends where a reader would stop: a sentence or paragraph
    assert all(w.rstrip()[-1] == "." for w in windows[:-1]), [w[-20:] for w in windows]

    quoted = await call("evidence_quote", evidence_id=evidence_id, quote=LAST_SENTENCE)
    assert quoted["verdict"] == "exact", quoted
    match = quoted["matches"][0]
    quote_selector, position = match["anchor"]["selector"]
    assert quote_selector["type"] == "TextQuoteSelector"
    assert position == {
        "type": "TextPositionSelector",
        "start": match["start"],
        "end": match["end"],
    }
    assert whole[position["start"] : position["end"]] == quote_selector["exact"] == LAST_SENTENCE
    assert whole[: position["start"]].endswith(quote_selector["prefix"])
    assert len(quote_selector["prefix"]) == 32 and quote_selector["suffix"] == ""
    fragment = match["anchor"]["text_fragment_url"]
    assert fragment.startswith(origin.url("/long-survey") + "#:~:text=")

    found = await call("evidence_search", query=f"{FIRST_WORD} {LAST_WORD}")
    assert [r["evidence_id"] for r in found["results"]] == [evidence_id], found
    snippets = found["results"][0]["snippets"]
    texts = [whole[s["start"] : s["end"]] for s in snippets]
    assert texts == [s["text"] for s in snippets]
    assert any(FIRST_WORD in t for t in texts) and any(LAST_WORD in t for t in texts), texts
    for s in snippets:
        assert s["anchor"]["selector"][1] == {
            "type": "TextPositionSelector",
            "start": s["start"],
            "end": s["end"],
        }
    return match
