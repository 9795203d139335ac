"""trafilatura is an optional extra: imported at its first use, never by a server's start,
and without it the hybrid keeps our own text on the pages where ours is unsure."""

from __future__ import annotations

import gzip
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sosoapi.extract import html_trafilatura
from sosoapi.extract.charset import decode_bytes
from sosoapi.extract.html import extract_text_document
from sosoapi.extract.html_bounds import bound_markup

# One short story and eight long comments beside it: ours holds a small share of the
# page's text, so it is not `confident` and the hybrid asks trafilatura.
_STORY = (
    "<p>The council met on Tuesday and agreed to keep the harbour open through the winter "
    "months, after a long debate about the cost of ice-breaking.</p>"
)
_COMMENTS = "".join(
    f"<p>Reader comment {n}: a long paragraph about something else entirely, with enough "
    "words to count as prose on this page for the rule.</p>"
    for n in range(8)
)
UNSURE = (
    f"<html><head><title>Harbour</title></head><body><article>{_STORY}</article>"
    f"<aside>{_COMMENTS}</aside></body></html>"
).encode()


@pytest.fixture
def without_the_extra(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # `import trafilatura` fails
    html_trafilatura._trafilatura.cache_clear()
    yield
    html_trafilatura._trafilatura.cache_clear()


def _read(extractor: str) -> str:
    document = extract_text_document(
        UNSURE,
        media_type="text/html",
        charset=None,
        content_language=None,
        url="https://example.org/note",
        extractor=extractor,  # type: ignore[arg-type]
    )
    assert document is not None
    return document.text


def test_without_the_extra_an_unsure_page_keeps_our_own_text(without_the_extra: None) -> None:
    assert html_trafilatura.trafilatura_text(bound_markup(UNSURE.decode())) == ""
    ours = _read("lexbor")
    assert ours.startswith("The council met on Tuesday") and "Reader comment" not in ours
    assert _read("hybrid") == ours


def test_a_server_start_does_not_import_trafilatura() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, sosoapi.app; print(*sys.modules)"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert "trafilatura" not in loaded and "babel" not in loaded


def test_trafilatura_reads_real_pages_as_with_lxml_html_own_element_lookup() -> None:
    """trafilatura's parser makes its elements through lxml's C class lookup
    (html_trafilatura); its text is the one lxml.html's own lookup gives, on real pages
    and on a page of form controls (the only elements whose class differs)."""
    pytest.importorskip("trafilatura")
    from lxml import html
    from trafilatura.utils import HTML_PARSER

    pages = [bound_markup(markup) for markup in (*_real_markups(), _FORM_PAGE)]
    ours = [html_trafilatura.trafilatura_text(page) for page in pages]
    assert type(HTML_PARSER.makeelement("input")) is html.HtmlElement  # not InputElement
    HTML_PARSER.set_element_class_lookup(html.HtmlElementClassLookup())
    try:
        theirs = [html_trafilatura.trafilatura_text(page) for page in pages]
    finally:
        html_trafilatura._look_up_elements_in_c(HTML_PARSER)
    assert all(ours) and ours == theirs


_FORM_PAGE = (
    "<html><body><article><h1>Harbour ferry timetable</h1>" + _STORY * 4 + "<form action='/q'>"
    "<label for='d'>Day of travel</label><input id='d' value='Tuesday'><select name='s'>"
    "<option>Morning crossing</option></select><textarea>Notes for the crew</textarea></form>"
    "</article></body></html>"
)


def _real_markups() -> list[str]:
    """The real pages of tests/data/pages, decoded."""
    folder = Path(__file__).parents[1] / "data" / "pages"
    bodies = [gzip.decompress(path.read_bytes()) for path in sorted(folder.glob("*.html.gz"))]
    return [decode_bytes(body, None, html=True) or "" for body in bodies]
