"""Citing a PDF to the page (pure): which page a span starts on, which pages a window
covers, and the exact RFC 8118 / Web Annotation forms of the page in an anchor."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from sosoapi.contract.document_bounds import LABEL_MAX, PAGES_CEILING
from sosoapi.contract.documents import DocumentPage
from sosoapi.contract.evidence_tools import QuoteMatch, QuoteOutput
from sosoapi.contract.models import PAGE_LABEL_MAX, PAGES_MAX, WindowPage
from sosoapi.research.evidence.anchors import anchor, page_ref
from sosoapi.research.evidence.page_spans import page_of, page_url, pages_in
from sosoapi.research.evidence.reader import window, window_pages
from tests.support.contract import assert_valid_output

PDF = "https://example.org/reports/annual.pdf?v=2#page=9"


@dataclass(frozen=True)
class Page:
    number: int
    label: str | None
    start: int
    end: int
    has_text: bool


def paged(bodies: list[str], labels: list[str | None] | None = None) -> tuple[str, list[Page]]:
    """A document's whole text, pages joined by a blank line that belongs to neither, as a
    reader lays them out, with each page's span; an empty body is a page without text."""
    labels = labels or [None] * len(bodies)
    text, pages = "", []
    for number, (body, label) in enumerate(zip(bodies, labels, strict=True), start=1):
        if body and text:
            text += "\n\n"
        pages.append(Page(number, label, len(text), len(text) + len(body), bool(body)))
        text += body
    return text, pages


TEXT, PAGES = paged(
    ["Front matter.", "Preface of the report.", "", "Chapter one begins here.", "The end."],
    ["i", "ii", "iii", "1", "2"],
)


def at(phrase: str) -> tuple[int, int]:
    start = TEXT.index(phrase)
    return start, start + len(phrase)


def number(start: int, end: int) -> int | None:
    page = page_of(PAGES, start, end)
    return page.number if page else None


def test_a_span_is_on_the_page_of_its_first_character_at_either_edge_of_the_page() -> None:
    second = PAGES[1]
    assert number(second.start, second.start + 1) == 2  # the page's first character
    assert number(second.end - 1, second.end) == 2  # its last character
    assert number(second.start - 1, second.start) == 1  # the separator before it
    assert number(PAGES[0].end - 1, PAGES[0].end) == 1


def test_a_span_across_a_page_break_is_on_the_page_where_it_starts() -> None:
    start, _ = at("report.")
    _, end = at("Chapter one")
    assert number(start, end) == 2


def test_a_span_that_starts_in_the_separator_is_on_the_next_page_it_touches() -> None:
    start = PAGES[1].end  # the blank line after page 2
    assert number(start, start + len("\n\nChapter")) == 4


def test_a_page_without_text_is_never_the_page_of_a_span() -> None:
    start, end = at("Chapter")
    assert PAGES[2].start == PAGES[2].end  # page iii is a scan, empty where page 1 begins
    assert number(start, end) == 4
    assert number(PAGES[3].start, PAGES[3].start) == 4  # an empty span at the same place


def test_a_span_past_the_last_text_is_on_the_last_page_with_text() -> None:
    assert number(len(TEXT), len(TEXT)) == 5
    only_scans = [Page(1, None, 0, 0, False), Page(2, None, 0, 0, False)]
    found = page_of(only_scans, 0, 0)
    assert found is not None and found.number == 1
    assert page_of([], 0, 5) is None


def test_the_page_beside_an_anchor_is_its_number_and_the_label_the_document_prints() -> None:
    start, end = at("Preface")
    ref = page_ref(PAGES, start, end)
    assert ref is not None and (ref.number, ref.label) == (2, "ii")
    start, end = at("Chapter one")
    ref = page_ref(PAGES, start, end)
    assert ref is not None and (ref.number, ref.label) == (4, "1")
    assert page_ref([], 0, 3) is None


def test_a_pdf_anchor_carries_the_rfc_8118_fragment_selector_and_a_page_link() -> None:
    start, end = at("Chapter one begins")
    wire = anchor(TEXT, start, end, PDF, PAGES).wire()
    quote, position, fragment = wire["selector"]
    assert quote["exact"] == "Chapter one begins"
    assert position == {"type": "TextPositionSelector", "start": start, "end": end}
    assert fragment == {
        "type": "FragmentSelector",
        "conformsTo": "http://tools.ietf.org/rfc/rfc3778",
        "value": "page=4",  # the number in file order, never the label "1"
    }
    assert wire["page_url"] == "https://example.org/reports/annual.pdf?v=2#page=4"
    assert wire["text_fragment_url"] is None  # PDF viewers do not follow #:~:text=


def test_a_pdf_upload_has_the_fragment_selector_but_no_link() -> None:
    start, end = at("Preface")
    made = anchor(TEXT, start, end, None, PAGES)
    assert made.selector[-1].wire() == {
        "type": "FragmentSelector",
        "conformsTo": "http://tools.ietf.org/rfc/rfc3778",
        "value": "page=2",
    }
    assert made.page_url is None and made.text_fragment_url is None


def test_other_evidence_keeps_the_selector_pair_and_its_text_fragment() -> None:
    made = anchor("A page of the web.", 2, 6, "https://example.org/a")
    assert len(made.selector) == 2 and made.page_url is None
    assert made.text_fragment_url == "https://example.org/a#:~:text=page"


def test_the_page_link_replaces_any_fragment_of_the_source_url() -> None:
    assert page_url("https://example.org/a.pdf#nameddest=intro", PAGES[4]) == (
        "https://example.org/a.pdf#page=5"
    )


def test_a_quote_match_in_a_pdf_is_a_valid_output_of_the_published_contract() -> None:
    start, end = at("Preface of the report")
    match = QuoteMatch(
        evidence_id="7d3c6a0e-2b1f-4c55-9a57-1f0e4b8f5a21",
        revision=1,
        start=start,
        end=end,
        text=TEXT[start:end],
        similarity=1.0,
        segment_index=None,
        start_ms=None,
        end_ms=None,
        anchor=anchor(TEXT, start, end, PDF, PAGES),
        page=page_ref(PAGES, start, end),
    )
    output = QuoteOutput(verdict="exact", matches=[match], closest=None, found_elsewhere=[])
    assert_valid_output("sosoapi_research_evidence_quote", output.wire())
    assert output.wire()["matches"][0]["page"] == {"number": 2, "label": "ii"}


def test_a_window_names_the_pages_it_covers_with_their_spans() -> None:
    pages = window_pages(PAGES, 0, PAGES[1].end, len(TEXT))
    assert pages is not None
    assert [(p.number, p.label, p.start, p.end, p.has_text) for p in pages] == [
        (1, "i", PAGES[0].start, PAGES[0].end, True),
        (2, "ii", PAGES[1].start, PAGES[1].end, True),
    ]
    rest = window_pages(PAGES, PAGES[1].end, len(TEXT), len(TEXT))
    assert rest is not None
    assert [(p.number, p.has_text) for p in rest] == [(3, False), (4, True), (5, True)]
    assert window_pages([], 0, 10, 10) is None  # not a PDF: no pages key to read


def test_trailing_scanned_pages_are_named_by_the_last_window() -> None:
    text, pages = paged(["Only the first page has text.", "", ""])
    assert [p.number for p in pages_in(pages, 0, len(text), len(text))] == [1, 2, 3]
    assert [p.number for p in pages_in(pages, 0, 10, len(text))] == [1]


bodies = st.lists(
    st.one_of(st.just(""), st.text(alphabet="ab .\n", min_size=1, max_size=40)),
    min_size=1,
    max_size=12,
)


@given(bodies, st.integers(min_value=1, max_value=60))
def test_windows_read_in_turn_name_every_page_exactly_once(texts: list[str], length: int) -> None:
    text, pages = paged(texts)
    named: list[int] = []
    offset = 0
    while True:
        end, _ = window(text, [], offset, length)
        named += [p.number for p in pages_in(pages, offset, end, len(text))]
        if end >= len(text):
            break
        offset = end
    assert {p.number for p in pages if p.has_text} <= set(named)  # a long page: in several
    scans = [p.number for p in pages if not p.has_text]
    assert [n for n in named if n in scans] == scans  # each page without text, once


@given(bodies, st.data())
def test_the_page_of_a_span_holds_its_first_character_that_is_on_a_page(
    texts: list[str], data: st.DataObject
) -> None:
    text, pages = paged(texts)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    page = page_of(pages, start, end)
    assert page is not None
    on_page = [
        i for i in range(start, max(end, start + 1)) if any(p.start <= i < p.end for p in pages)
    ]
    if on_page:
        assert page.start <= on_page[0] < page.end
    else:
        assert page.has_text or not any(p.has_text for p in pages)


def test_a_windows_pages_have_the_documents_page_shape_and_bounds() -> None:
    """`evidence_get`'s `WindowPage` repeats the document tool's `DocumentPage` (the
    contract models cannot import each other both ways): same fields, same bounds."""
    assert WindowPage.model_fields.keys() == DocumentPage.model_fields.keys()
    assert (PAGES_MAX, PAGE_LABEL_MAX) == (PAGES_CEILING, LABEL_MAX)
    page = DocumentPage(number=3, label="iii", start=4, end=9, has_text=True)
    assert WindowPage.model_validate(page.wire()).wire() == page.wire()
