"""A quotation from page k of a real PDF is found with page k beside its anchor, in its
`FragmentSelector` and in its `#page=k` link, and that link opens page k in chromium's PDF
viewer.

The PDF (`tests/data/pdf/unstructured-layout-parser-paper-with-empty-pages.pdf`: text on
pages 1 and 4, nothing drawn on pages 2 and 3) is read by the document tool's own reader
and result builder; its revision is what the evidence code reads (`StoredRevision`: the
whole text and its pages). The same through the tools and both stores:
`tests/documents/test_document_citations.py`. Which page holds the quoted words is
checked against a second, independent reader (pypdf), not against our own page spans.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pypdf
import pytest

from sosoapi.contract.documents import DocumentResult
from sosoapi.contract.evidence_tools import QuoteMatch
from sosoapi.extract.pdf.reader import read_pdf
from sosoapi.research.documents.result import document_result
from sosoapi.research.evidence.diffs import compare
from sosoapi.research.evidence.quotes import judge
from sosoapi.research.evidence.scope import StoredRevision
from sosoapi.research.retrieval.finished import Finished
from tests.support.browser import browser_page
from tests.support.contract import assert_valid_output
from tests.support.results import page_result

PAPER = Path(__file__).parents[1] / "data/pdf/unstructured-layout-parser-paper-with-empty-pages.pdf"
ON_PAGE_1 = (
    "Recent advances in document image analysis (DIA) have been primarily driven by the "
    "application of neural networks."
)
ON_PAGE_4 = (
    "A generalized learning-based framework dramatically reduces the need for the manual "
    "specification of complicated rules"
)
PDF_ID = "0b9f4c1e-6a43-4d3b-9c1e-2f5d7a8b9c10"
PAGE_ID = "5e2d8f1a-7b6c-4e3d-8a9b-1c2d3e4f5a6b"


@cache
def _read(source_url: str, path: Path) -> Finished[DocumentResult]:
    now = datetime.now(UTC)
    return document_result(
        read_pdf(path), source_url=source_url, sha256="0" * 64, retrieved_at=now, settled_at=now
    )


def pdf_revision(
    source_url: str, revision: int = 1, text: str | None = None, path: Path = PAPER
) -> StoredRevision:
    """The paper as PDF evidence, as `scope.stored_revision` reads it back: the document
    result, its whole text (or `text`, a later read of the same pages) and its pages."""
    finished = _read(source_url, path)
    result, whole = finished.result, text or finished.whole_text
    return StoredRevision(PDF_ID, revision, revision, result, whole, [], tuple(result.pages))


def page_revision() -> StoredRevision:
    """A web page that misquotes the paper (other evidence of the same corpus)."""
    text = "A blog post says a generalized framework removes all manual rules."
    content = page_result(
        text, source_url="https://blog.example/post", retrieved_at="2026-01-01T00:00:00Z"
    )
    return StoredRevision(PAGE_ID, 1, 1, content, content.text, [])


def pages_holding(words: str) -> list[int]:
    """The pages pypdf finds every one of `words`'s long words on (a second reader; its
    ligatures, such as "ﬁ", unfolded)."""
    long_words = [w.strip(".,()") for w in words.split() if len(w) > 6]
    reader = pypdf.PdfReader(PAPER)
    texts = [unicodedata.normalize("NFKC", page.extract_text() or "") for page in reader.pages]
    return [n for n, text in enumerate(texts, start=1) if all(w in text for w in long_words)]


URL = "https://papers.example/layout-parser.pdf"


def only_match(quote: str, source_url: str = URL) -> QuoteMatch:
    checked = judge([pdf_revision(source_url)], quote)
    assert checked.verdict == "exact", checked.verdict
    assert len(checked.matches) == 1
    assert_valid_output("sosoapi_research_evidence_quote", checked.wire())
    return checked.matches[0]


def test_a_quotation_from_page_4_is_found_on_page_4_past_two_empty_pages() -> None:
    assert pages_holding(ON_PAGE_4) == [4]
    match = only_match(ON_PAGE_4)
    assert match.page is not None and match.page.number == 4
    wire = match.anchor.wire()
    assert wire["selector"][2] == {
        "type": "FragmentSelector",
        "conformsTo": "http://tools.ietf.org/rfc/rfc3778",
        "value": "page=4",
    }
    assert wire["page_url"] == URL + "#page=4"
    assert wire["text_fragment_url"] is None
    assert wire["selector"][0]["exact"] == ON_PAGE_4


def test_a_quotation_from_page_1_is_found_on_page_1() -> None:
    assert pages_holding(ON_PAGE_1) == [1]
    match = only_match(ON_PAGE_1)
    assert match.page is not None and match.page.number == 1
    assert match.anchor.page_url == URL + "#page=1"


def test_a_quotation_over_a_page_break_is_found_across_it_on_the_page_it_starts() -> None:
    two_columns = Path(__file__).parents[1] / "data/pdf/unstructured-multi-column-2p.pdf"
    revision = pdf_revision(URL, path=two_columns)
    first, second = revision.pages
    quote = (
        "setting new state-of-the-art results on multiple open-domain QA datasets, it also "
        "suffers from two weaknesses"
    )
    checked = judge([revision], quote)
    assert checked.verdict == "normalized"  # the page break is white space to a reader
    [match] = checked.matches
    assert match.start < first.end < second.start < match.end
    assert match.page is not None and match.page.number == 1
    assert match.anchor.page_url == URL + "#page=1"


def test_a_quote_checked_against_a_web_page_is_found_elsewhere_in_the_pdf_on_its_page() -> None:
    """`found_elsewhere` looks at every other revision of the corpus, whatever its kind."""
    checked = judge([page_revision()], ON_PAGE_4, others=[pdf_revision(URL)])
    assert checked.verdict != "exact"
    found = [
        (str(m.evidence_id), m.page.number if m.page else None) for m in checked.found_elsewhere
    ]
    assert found == [(PDF_ID, 4)]
    assert checked.found_elsewhere[0].anchor.page_url == URL + "#page=4"
    assert_valid_output("sosoapi_research_evidence_quote", checked.wire())


def test_a_change_between_two_reads_names_its_page_on_both_sides() -> None:
    old = pdf_revision(URL)
    start = old.text.index("dramatically")
    text = old.text[:start] + "drastically " + old.text[start + len("dramatically ") :]
    new = pdf_revision(URL, 2, text)
    diff = compare(old, new)
    [change] = diff.changes
    assert change.from_page is not None and change.from_page.number == 4
    assert change.to_page == change.from_page
    assert change.from_anchor is not None and change.from_anchor.page_url == URL + "#page=4"
    assert_valid_output("sosoapi_research_evidence_diff", diff.wire())


class _Pdf(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = PAPER.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def served_pdf() -> Iterator[str]:
    """The paper on a loopback origin, as `application/pdf`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pdf)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/layout-parser.pdf"
    finally:
        server.shutdown()
        server.server_close()


# The viewer's page box: chromium's PDF viewer (an extension page in a frame of the tab)
# shows the page it opened at in its toolbar's page selector.
_SHOWN_PAGE = """() => {
  const viewer = document.querySelector('pdf-viewer');
  const toolbar = viewer?.shadowRoot?.querySelector('viewer-toolbar');
  const box = toolbar?.shadowRoot?.querySelector('viewer-page-selector');
  return box && box.docLength ? [box.pageNo, box.docLength] : null;
}"""


async def _page_shown(context: Any, url: str) -> list[int]:
    """[page shown, pages] once a new tab's viewer has shown the same page for a second
    (it shows page 1 while it loads, then goes to the fragment's page)."""
    page = await context.new_page()
    await page.goto(url, wait_until="commit")
    seen: list[list[int]] = []
    for _ in range(150):
        viewers = [f for f in page.frames if f.url.startswith("chrome-extension://")]
        shown = await viewers[0].evaluate(_SHOWN_PAGE) if viewers else None
        if shown:
            seen.append(list(shown))
            if len(seen) >= 10 and all(s == seen[-1] for s in seen[-10:]):
                await page.close()
                return seen[-1]
        await page.wait_for_timeout(100)
    raise AssertionError(f"chromium's PDF viewer settled on no page for {url}: {seen}")


@pytest.mark.slow(reason="starts chromium and waits for its PDF viewer twice (10 to 20 s)")
async def test_the_page_link_opens_that_page_in_chromiums_pdf_viewer(served_pdf: str) -> None:
    """Headless chromium runs its PDF viewer, so the link is followed for real: the page
    number the viewer shows is the anchor's, and page 1's link opens page 1 (the viewer
    does not simply open every document at its last page)."""
    on_4 = only_match(ON_PAGE_4, served_pdf).anchor.page_url
    on_1 = only_match(ON_PAGE_1, served_pdf).anchor.page_url
    assert on_4 == served_pdf + "#page=4" and on_1 == served_pdf + "#page=1"
    async with browser_page() as tab:
        context = tab.context  # type: ignore[attr-defined]
        assert await _page_shown(context, on_4) == [4, 4]
        assert await _page_shown(context, on_1) == [1, 4]
