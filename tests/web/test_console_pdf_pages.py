"""The console's search results say on which page of a PDF a snippet starts, linked to the
source at that page (`#page=N`), as the search tool's answer gives it (rendered from the
tool's own output, as the search page does); and, end to end on both stores, a PDF read by
the document tool shows page by page, its scanned pages said, its matches' pages linked."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

import httpx

from sosoapi.application import Application
from sosoapi.contract.evidence_tools import SearchOutput, SearchResult, Snippet
from sosoapi.research.evidence.anchors import anchor, page_ref
from sosoapi.research.evidence.search import QUERY_RULES, parse_query
from sosoapi.web.console import Console
from sosoapi.web.page_kit import templates
from tests.documents.support import PDF, document_args, retrieve_document
from tests.support.origin import HTTPSOrigin, Route
from tests.web.conftest import console_app, sign_in

WS = "3f1c2b4a-5d6e-4f70-8a91-b2c3d4e5f607"
PDF_URL = "https://papers.example/report.pdf"
PAPER = PDF / "unstructured-layout-parser-paper-with-empty-pages.pdf"


@dataclass(frozen=True)
class Page:
    number: int
    label: str | None
    start: int
    end: int
    has_text: bool = True


class Links(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href = dict(attrs).get("href")

    def handle_data(self, data: str) -> None:
        if self._href is not None and data.strip():
            self.links.append((self._href, data.strip()))
            self._href = None


def _snippet(text: str, phrase: str, url: str | None, pages: list[Page]) -> Snippet:
    start = text.index(phrase)
    end = start + len(phrase)
    return Snippet(
        text=text[start:end],
        start=start,
        end=end,
        start_ms=None,
        end_ms=None,
        anchor=anchor(text, start, end, url, pages),
        page=page_ref(pages, start, end),
    )


def _rendered(*snippets: Snippet, url: str | None) -> str:
    Console(None, None)  # type: ignore[arg-type]  # registers the console's filters
    result = SearchResult(
        evidence_id="0b9f4c1e-6a43-4d3b-9c1e-2f5d7a8b9c10",
        revision=1,
        kind="url_text",
        title="A report",
        source_url=url,
        score=1.0,
        snippets=list(snippets),
    )
    return (
        templates()
        .get_template("console/search.html")
        .render(
            csrf="",
            signed_in=True,
            workspace_id=WS,
            active="search",
            chosen={"q": "budget", "kind": "", "corpus": ""},
            kept={"q": "budget"},
            corpora=[],
            found=SearchOutput(results=[result], next_cursor=None),
            error=None,
            phrases=parse_query("budget"),
            query_rules=QUERY_RULES,
        )
    )


TEXT = "Preface on the budget.\n\nThe budget for the year was approved."
PAGES = [Page(1, "iv", 0, 22), Page(2, "1", 24, len(TEXT))]


def test_a_pdf_snippet_names_its_page_and_links_to_the_source_at_that_page() -> None:
    html = _rendered(
        _snippet(TEXT, "Preface on the budget", PDF_URL, PAGES),
        _snippet(TEXT, "The budget for the year", PDF_URL, PAGES),
        url=PDF_URL,
    )
    links = Links(html).links
    assert (PDF_URL + "#page=1", "page 1 (printed “iv”)") in links
    assert (PDF_URL + "#page=2", "page 2 (printed “1”)") in links  # label is not the number


def test_an_uploaded_pdf_names_the_page_without_a_link_and_a_web_page_names_none() -> None:
    uploaded = _rendered(_snippet(TEXT, "The budget for the year", None, PAGES), url=None)
    assert '<span class="page">page 2 (printed “1”)</span>' in uploaded
    web = _rendered(_snippet(TEXT, "The budget for the year", PDF_URL, []), url=PDF_URL)
    assert 'class="page"' not in web and "#page=" not in web


# --- end to end: a PDF read by the document tool, shown by the console ----------------------


async def test_the_console_shows_a_pdfs_pages_and_its_search_matches_page_numbers(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    path = "/papers/layout-parser.pdf"
    origin.routes[path] = Route(PAPER.read_bytes(), content_type="application/pdf")
    url = origin.url(path)
    receipt = await retrieve_document(application, token, document_args(ws, url))
    pdf = receipt["evidence"]["evidence_id"]
    transport = httpx.ASGITransport(app=console_app(application))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await sign_in(client, token)
        base = f"/console/workspaces/{ws}"
        shown = await client.get(f"{base}/evidence/{pdf}")
        assert shown.status_code == 200
        links = Links(shown.text).links
        assert [(href, said) for href, said in links if "#page=" in href] == [
            (f"{url}#page={n}", f"page {n}") for n in (1, 2, 3, 4)
        ]
        assert shown.text.count("No text layer on this page") == 2  # pages 2 and 3
        found = await client.get(f"{base}/search", params={"q": '"generalized learning-based"'})
        assert found.status_code == 200
        assert (f"{url}#page=4", "page 4") in Links(found.text).links


async def test_the_console_diff_of_a_pdf_marks_each_change_with_its_page(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """The same address read twice, the second time another paper: each change of the diff
    page says on which page of the new revision it falls, linked to that page."""
    ws, token = owner
    path = "/papers/report.pdf"
    url = origin.url(path)
    for paper in (PAPER, PDF / "docling-normal_4pages.pdf"):
        origin.routes[path] = Route(paper.read_bytes(), content_type="application/pdf")
        receipt = await retrieve_document(application, token, document_args(ws, url))
    assert receipt["evidence"]["revision"] == 2
    pdf = receipt["evidence"]["evidence_id"]
    transport = httpx.ASGITransport(app=console_app(application))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        await sign_in(client, token)
        base = f"/console/workspaces/{ws}/evidence/{pdf}"
        shown = await client.get(f"{base}/diff", params={"from": 1, "to": 2})
        assert shown.status_code == 200
        marks = [(h, said) for h, said in Links(shown.text).links if "#page-" in h]
        assert marks and marks[0] == (f"{base}?revision=2#page-1", "page 1")
        numbers = [int(h.rsplit("-", 1)[1]) for h, _ in marks]
        assert numbers == sorted(set(numbers)) and set(numbers) <= {1, 2, 3, 4}
        # each mark names a page the new revision's own page shows, by the same anchor
        page = await client.get(base, params={"revision": 2})
        assert all(f'id="page-{n}"' in page.text for n in numbers)
