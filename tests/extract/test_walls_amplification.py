"""Embedded data is read once per body, however often the page refers to it (issue 35).

The pages of tests/data/hostile/amplification hold one large string and thousands of
references to it (Nuxt 3 `__NUXT_DATA__`, list-shaped `__NEXT_DATA__`). The work is
counted, never timed: how many bodies reach `_as_text` and how many characters.
bench/hostile.py measures the CPU against a plain page of the same size.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sosoapi.extract.html import extract_text_document
from sosoapi.extract.walls import embedded

PAGES = Path(__file__).resolve().parent.parent / "data" / "hostile" / "amplification"


class Readings:
    """A stand-in for `embedded._as_text` that counts what it is handed and fails at once
    past `most` bodies (the old code would read thousands, one parse each)."""

    def __init__(self, real: Callable[[str], str], most: int) -> None:
        self.real, self.most = real, most
        self.bodies: list[int] = []

    def __call__(self, body: str) -> str:
        self.bodies.append(len(body))
        assert len(self.bodies) <= self.most, f"{len(self.bodies)} bodies read"
        return self.real(body)


@pytest.mark.parametrize(
    ("name", "judgement"),
    [("nuxt-references.html", "embedded:nuxt"), ("next-references.html", "embedded:next_data")],
)
def test_a_body_referenced_thousands_of_times_is_read_once(
    name: str, judgement: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (PAGES / name).read_bytes()
    assert body.count(b'"body":1}') >= 4_000
    readings = Readings(embedded._as_text, most=1)
    monkeypatch.setattr(embedded, "_as_text", readings)
    doc = extract_text_document(body, media_type="text/html", charset=None, content_language=None)
    assert doc is not None
    assert doc.judgement == judgement
    assert doc.text.startswith("0. The council met on Tuesday")
    assert len(readings.bodies) == 1


def test_each_referenced_index_is_resolved_once() -> None:
    markup = (PAGES / "nuxt-references.html").read_text(encoding="utf-8")
    start = markup.index('id="__NUXT_DATA__">') + len('id="__NUXT_DATA__">')
    data = json.loads(markup[start : markup.index("</script", start)])
    assert len(list(embedded._bodies(data, data))) == 1


def test_distinct_bodies_are_read_once_each_and_cut_to_the_page_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three distinct bodies of 0.6 bound each, each also repeated: read once each, and
    all of them together cut to `_EMBEDDED_CHARS_MAX` characters."""
    size = embedded._EMBEDDED_CHARS_MAX * 6 // 10
    bodies = [f"{n} " + "word " * (size // 5) for n in range(3)]
    table: list[object] = [*bodies, *({"text": n % 3} for n in range(300))]
    markup = f'<div id="__nuxt"></div><script id="__NUXT_DATA__">{json.dumps(table)}</script>'
    readings = Readings(embedded._as_text, most=3)
    monkeypatch.setattr(embedded, "_as_text", readings)
    found = embedded.embedded_text(markup)
    assert found is not None and found[0] == "nuxt"
    assert len(readings.bodies) == 2  # the third starts past the bound
    assert sum(readings.bodies) == embedded._EMBEDDED_CHARS_MAX


def test_repeated_json_ld_article_bodies_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    article = {"@type": "NewsArticle", "articleBody": "A sentence of the article. " * 40}
    block = json.dumps([article] * 500)
    markup = f'<script type="application/ld+json">{block}</script>'
    readings = Readings(embedded._as_text, most=1)
    monkeypatch.setattr(embedded, "_as_text", readings)
    found = embedded.embedded_text(markup)
    assert found is not None and found[0] == "json_ld"
    assert len(readings.bodies) == 1


# 600 tags that Lexbor makes 90,000 elements of: each `<p>` closes the 300 formatting
# elements left open in the one before, and its text opens clones of all of them again.
CLONES = "<p>" + "".join(f"<b class=c{n}>" for n in range(300)) + "<p>x" * 300
PROSE = "The harbour board voted on Tuesday to extend the ferry timetable into the winter. "


def test_an_embedded_html_body_is_parsed_within_the_page_bounds() -> None:
    """A body the page embeds is parsed like the page (extract/html_bounds.py): read to the
    node bound, the paragraph past its 90,000 elements never parsed."""
    body = f"<p>{PROSE * 4}</p>{CLONES}<p>The closing paragraph, past the node bound.</p>"
    data = json.dumps({"@type": "NewsArticle", "articleBody": body})
    found = embedded.embedded_text(f'<script type="application/ld+json">{data}</script>')
    assert found is not None and found[0] == "json_ld"
    assert found[1].startswith(PROSE.strip()) and "closing paragraph" not in found[1]


@pytest.mark.parametrize(
    "script",
    [
        '<script type="application/ld+json">{"@type": "Article", "articleBody": %s, "x": %s}',
        '<script>window.__INITIAL_STATE__={"article": {"body": %s}, "x": %s};',
    ],
)
def test_embedded_json_nested_past_the_recursion_limit_is_read_as_data(script: str) -> None:
    """JSON is read by extract/json_data.py, its one home: values nested deeper than it
    reads are null, and the article beside them is read (it was lost to the whole block's
    `RecursionError`)."""
    deep = '{"a": ' * 5_000 + "1" + "}" * 5_000
    found = embedded.embedded_text(script % (json.dumps(PROSE * 4), deep) + "</script>")
    assert found is not None and found[1] == (PROSE * 4).strip()
