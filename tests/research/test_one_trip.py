"""A page read makes one trip to the parsing pool: the document, its wall verdict and
the citation fields come back together, from one decode, equal to what each extract
function gives alone. Real pages from tests/data/pages."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from sosoapi.egress.types import FetchOutcome
from sosoapi.extract.citation import citation_of
from sosoapi.extract.html import extract_text_document
from sosoapi.research.retrieval import reading
from tests.support.pages import real_pages

PAGES = real_pages()


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
async def test_a_page_read_is_one_trip_with_everything_it_needs(
    monkeypatch: pytest.MonkeyPatch, page: Any
) -> None:
    trips: list[str] = []

    async def counted(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        trips.append(fn.__name__)
        return functools.partial(fn, *args, **kwargs)()

    async def fetch(url: str, *, accept: tuple[str, ...]) -> FetchOutcome:
        return FetchOutcome(
            None, final_url=url, status_code=200, body=page.html, content_type="text/html"
        )

    monkeypatch.setattr(reading, "off_loop", counted)
    captured = await reading.read_captured(fetch, "url_text", page.url, None)
    assert trips == ["read_page"]
    alone = extract_text_document(
        page.html, media_type="text/html", charset=None, content_language=None, url=page.url
    )
    assert alone is not None and captured.result.text == alone.text
    assert captured.result.title == alone.title
    assert captured.citation == citation_of(page.html, None, page.url)
