"""A title is the `<title>` element's text as HTML parses it (raw text: tags in it are text).

Issue 38: the runaway-title repair closed every title holding a tag at its first `<`, so
`<title><script>...</script>Hostile title</title>` and "Why <div> soup hurts" lost their
text; only a title that runs past the head (or never closes) is repaired.
"""

from __future__ import annotations

import pytest

from sosoapi.extract.html import extract_text_document
from sosoapi.extract.html_repair import close_runaway_title
from sosoapi.extract.tracks import find_tracks

BODY = "<body><h1>Heading</h1><p>" + "A sentence of the article. " * 20 + "</p></body></html>"


def _title(head: str) -> str | None:
    page = f"<!doctype html><html><head>{head}</head>{BODY}"
    document = extract_text_document(
        page.encode(), media_type="text/html", charset=None, content_language=None
    )
    assert document is not None
    return document.title


@pytest.mark.parametrize(
    ("head", "title"),
    [
        (
            "<title><script>alert(1)</script>Hostile title</title>",
            "<script>alert(1)</script>Hostile title",
        ),
        ("<title>Why <div> soup hurts</title>", "Why <div> soup hurts"),
        ("<title>Use &lt;p&gt; &amp; <br> well</title>", "Use <p> & <br> well"),
        (
            "<meta charset=utf-8><title>A <b>bold</b> claim</title><meta name=x content=y>",
            "A <b>bold</b> claim",
        ),
    ],
)
def test_a_title_holding_tags_keeps_its_text(head: str, title: str) -> None:
    assert _title(head) == title


def test_a_closed_title_is_left_as_it_is() -> None:
    page = "<head><title>Why <div> soup hurts</title></head><body><p>x</p></body>"
    assert close_runaway_title(page) == page


@pytest.mark.parametrize(
    "page",
    [
        "<head><title>Lecture 4</head><body><p>Text</p></body>",  # never closed
        "<head><title>Lecture 4</titl></head><body><p>Text</p><svg><title>icon</title></svg>",
    ],
)
def test_a_runaway_title_is_still_closed(page: str) -> None:
    repaired = close_runaway_title(page)
    assert repaired.startswith("<head><title>Lecture 4</title>")


def test_a_hostile_title_reaches_the_caption_page_reader_whole() -> None:
    found = find_tracks(
        "<head><title><script>x()</script>Hostile title</title></head><body></body>",
        "https://example.org/v",
    )
    assert found.title == "<script>x()</script>Hostile title"
