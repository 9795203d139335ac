"""A page read makes one trip to the parsing pool: the document, its wall verdict, the
citation fields and the search passages come back together, from one decode, equal to
what each function gives alone. Real pages from tests/data/pages."""

from __future__ import annotations

import functools
import hashlib
import pickle
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from sosoapi.egress.types import FetchOutcome, Hop, ResponseHeaders
from sosoapi.extract.citation import citation_of
from sosoapi.extract.html import extract_text_document
from sosoapi.research.evidence import passages as passages_module
from sosoapi.research.evidence.identity import evidence_write
from sosoapi.research.offload import Offload
from sosoapi.research.retrieval import reading
from sosoapi.research.retrieval.finished import finished
from sosoapi.store.bodies import pack_body
from sosoapi.store.records import PackedBody, PassageRecord
from tests.support.pages import real_pages

PAGES = real_pages()
T = TypeVar("T")


class Inline(Offload):
    """The parsing pool's trips run in this thread, each one's function named in `trips`."""

    def __init__(self) -> None:
        super().__init__()
        self.trips: list[str] = []

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        self.trips.append(getattr(fn, "__name__", repr(fn)))
        return functools.partial(fn, *args, **kwargs)()


async def read_inline(
    kind: str,
    body: bytes,
    media: str,
    url: str,
    *,
    pool: Inline | None = None,
    hops: tuple[Hop, ...] = (),
) -> Any:
    """`read_captured` of `body` served as `media` (after `hops`), the pool's trips run in
    this thread (`pool`'s, to look at them)."""

    async def fetch(asked: str, *, accept: tuple[str, ...]) -> FetchOutcome:
        headers = ResponseHeaders({"content-type": media})
        return FetchOutcome(
            None, final_url=asked, status_code=200, body=body, headers=headers, hops=hops
        )

    return await reading.read_captured(fetch, kind, url, None, pool=pool or Inline())


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
async def test_a_page_read_is_one_trip_with_everything_it_needs(page: Any) -> None:
    pool = Inline()
    captured = await read_inline("url_text", page.html, "text/html", page.url, pool=pool)
    assert pool.trips == ["read_page_and_passages"]
    alone = extract_text_document(
        page.html, media_type="text/html", charset=None, content_language=None, url=page.url
    )
    assert alone is not None and captured.finished.result.text == alone.text
    assert captured.finished.result.title == alone.title
    assert captured.citation == citation_of(page.html, None, page.url)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
async def test_the_settle_cuts_no_passage_of_a_page_read(
    monkeypatch: pytest.MonkeyPatch, page: Any
) -> None:
    """The evidence's passages are the trip's, equal to cutting them from the result, and
    the settle (on the event loop) cuts none of its own."""
    captured = await read_inline("url_text", page.html, "text/html", page.url)
    assert captured.passages is not None
    expected = passages_module.passages_of(captured.finished)
    cut: list[str] = []
    original = passages_module._passages

    def counted(*args: Any) -> Any:
        cut.append(args[0][:20])
        return original(*args)

    monkeypatch.setattr(passages_module, "_passages", counted)
    write = evidence_write("w", captured.finished, (), captured.citation, captured.passages)
    assert write is not None and write.passages == expected and expected
    assert cut == []


async def test_passages_cut_from_other_content_are_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A result whose text, title or description differs from what the trip cut gets its
    own passages: a trip's passages never index another text."""
    page = PAGES[0]
    captured = await read_inline("url_text", page.html, "text/html", page.url)
    assert captured.passages is not None
    for change in ({"title": "Another title"}, {"description": None}, {"text": "Other words."}):
        changed = captured.finished.result.model_copy(update=change)
        whole = None if "text" in change else captured.finished.whole_text
        other = finished(changed, whole_text=whole)
        assert not captured.passages.fit(other)
        write = evidence_write("w", other, (), None, captured.passages)
        assert write is not None
        assert write.passages == passages_module.passages_of(other)
        assert write.passages != captured.passages.passages


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_citation_adds_no_parse(monkeypatch: pytest.MonkeyPatch, page: Any) -> None:
    """The citation fields are read from the document's own tree, before the extractor
    edits it: a page read builds no Lexbor tree beyond what the document alone builds."""
    import sys

    from selectolax.lexbor import LexborHTMLParser

    from sosoapi.extract.html import decode_body, document_of
    from sosoapi.extract.page import read_page

    built: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> LexborHTMLParser:
        built.append(1)
        return LexborHTMLParser(*args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name.startswith("sosoapi.extract") and hasattr(module, "LexborHTMLParser"):
            monkeypatch.setattr(module, "LexborHTMLParser", counted)
    decoded = decode_body(page.html, "text/html", None)
    assert decoded is not None
    document_of(decoded, content_language=None, url=page.url)
    alone, built[:] = len(built), []
    read = read_page(
        page.html, media_type="text/html", charset=None, content_language=None, url=page.url
    )
    assert len(built) == alone
    assert read.citation == citation_of(page.html, None, page.url) and read.citation


async def test_the_answer_capture_is_packed_in_the_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's capture body (zstd and SHA-256: about 0.9 ms a page) is packed in the
    parse trip that reads the same bytes, not again on the server; a redirect's (another
    body) is packed where its capture is built. The stored form is the same either way."""
    page = PAGES[0]
    url = page.url
    inside: list[bool] = []
    in_trip = [False]
    original = PackedBody.of.__func__  # type: ignore[attr-defined]

    def counted(cls: type[PackedBody], body: bytes) -> PackedBody:
        inside.append(in_trip[0])
        return original(cls, body)

    monkeypatch.setattr(PackedBody, "of", classmethod(counted))

    class Marking(Inline):
        async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
            in_trip[0] = True
            try:
                return await super().run(fn, *args, **kwargs)
            finally:
                in_trip[0] = False

    def hop(status: int, body: bytes) -> Hop:
        at = datetime.now(UTC)
        return Hop(url, "203.0.113.9", at, (), status, "", "HTTP/1.1", (), body)

    hops = (hop(301, b"moved"), hop(200, page.html))
    captured = await read_inline("url_text", page.html, "text/html", url, pool=Marking(), hops=hops)
    assert [c.role for c in captured.captures] == ["redirect", "response"]
    assert inside == [True, False]  # the page's in the trip, the redirect's on its own
    for capture, body in zip(captured.captures, (b"moved", page.html), strict=True):
        assert capture.packed == pack_body(body)
        assert capture.body_sha256 == hashlib.sha256(body).hexdigest()


async def test_the_trip_s_passages_load_as_constructor_calls() -> None:
    """A page's passages come back from the parse worker as a pickle; each loads by its
    constructor (no frozen-dataclass state, which doubles the load on the server), equal
    to what was cut."""
    captured = await read_inline("url_text", PAGES[0].html, "text/html", PAGES[0].url)
    assert captured.passages is not None and captured.passages.passages
    for passage in captured.passages.passages:
        assert passage.__reduce_ex__(pickle.HIGHEST_PROTOCOL)[0] is PassageRecord
    loaded = pickle.loads(pickle.dumps(captured.passages, pickle.HIGHEST_PROTOCOL))
    assert loaded == captured.passages
