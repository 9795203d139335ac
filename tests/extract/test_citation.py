"""Citation fields read from the markup made for them, each with its source tag."""

from __future__ import annotations

import json

from sosoapi.extract.charset import decode_bytes
from sosoapi.extract.citation import citation_of
from sosoapi.extract.html_bounds import parse_html
from sosoapi.extract.html_meta import meta_contents, read_metadata
from sosoapi.extract.page import read_page
from tests.support.pages import real_pages

BASE = "https://news.example/2024/harbour?utm=x"


def page(head: str) -> bytes:
    return f"<!doctype html><html><head>{head}</head><body><p>Body</p></body></html>".encode()


def test_highwire_tags_win_and_every_field_names_its_tag() -> None:
    found = citation_of(
        page(
            '<meta name="citation_author" content="Lovelace, Ada">'
            '<meta name="citation_author" content="Charles Babbage">'
            '<meta name="citation_publication_date" content="2024-03-05">'
            '<meta name="DC.creator" content="Someone Else">'
            '<meta property="og:site_name" content="Harbour Gazette">'
            '<meta property="article:modified_time" content="2024-03-06T10:00:00Z">'
            '<meta name="DC.publisher" content="Gazette Media Ltd">'
            '<link rel="canonical" href="/2024/harbour">'
            '<script type="application/ld+json">{"@type": "Article", "author": "Json Person",'
            ' "datePublished": "2001-01-01", "dateModified": "2024-03-07"}</script>'
        ),
        None,
        BASE,
    )
    assert found == {
        "authors": {
            "value": ["Lovelace, Ada", "Charles Babbage"],
            "source": "citation_meta",
            "key": "citation_author",
        },
        "published": {"value": "2024-03-05", "source": "citation_meta",
                      "key": "citation_publication_date"},
        "site_name": {"value": "Harbour Gazette", "source": "opengraph", "key": "og:site_name"},
        "modified": {"value": "2024-03-07", "source": "json_ld", "key": "dateModified"},
        "publisher": {"value": "Gazette Media Ltd", "source": "dublin_core", "key": "dc.publisher"},
        "canonical_url": {"value": "https://news.example/2024/harbour", "source": "link_canonical",
                          "key": "canonical"},
    }  # fmt: skip


def test_json_ld_article_in_a_graph_comes_before_dublin_core_and_opengraph() -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "not an article"},
            {
                "@type": ["NewsArticle"],
                "author": [{"@type": "Person", "name": "Grace Hopper"}, "https://x.example/me"],
                "publisher": {"@type": "Organization", "name": "Harbour Press"},
                "datePublished": "2023-11-02T08:00:00+01:00",
                "dateModified": "not a date",
                "mainEntityOfPage": {"@id": "https://news.example/canonical"},
            },
        ],
    }
    found = citation_of(
        page(
            f'<script type="application/ld+json">{json.dumps(graph)}</script>'
            '<script type="application/ld+json">{broken</script>'
            '<meta name="DC.creator" content="Someone Else">'
            '<meta property="article:published_time" content="2020-01-01">'
            '<meta property="og:updated_time" content="2023-11-03">'
        ),
        "utf-8",
        BASE,
    )
    assert found["authors"] == {"value": ["Grace Hopper"], "source": "json_ld", "key": "author"}
    assert found["publisher"]["value"] == "Harbour Press"
    assert found["published"] == {
        "value": "2023-11-02T08:00:00+01:00", "source": "json_ld", "key": "datePublished"
    }  # fmt: skip
    # the malformed JSON-LD date is dropped, the next declared one is kept
    assert found["modified"] == {"value": "2023-11-03", "source": "opengraph",
                                 "key": "og:updated_time"}  # fmt: skip
    assert found["canonical_url"]["value"] == "https://news.example/canonical"


def test_a_page_that_declares_nothing_has_no_citation_and_nothing_is_guessed() -> None:
    assert citation_of(page("<title>By Ada Lovelace, 5 March 2024</title>"), None, BASE) == {}
    unsafe = citation_of(page('<link rel="canonical" href="javascript:alert(1)">'), None, BASE)
    assert unsafe == {}


def test_a_page_read_cites_its_real_pages_as_the_citation_read_alone_does() -> None:
    """A page read takes its metadata and its citation from one reading of the `<meta>`
    tags (extract/html.py); on real pages the citation is what `citation_of`, reading
    them itself, gives, and the title and description are those of the metadata alone."""
    cited = 0
    for real in real_pages():
        read = read_page(real.html, media_type="text/html", charset=None, url=real.url,
                         content_language=None)  # fmt: skip
        assert read.document is not None
        assert read.citation == citation_of(real.html, None, real.url), real.name
        tree = parse_html(decode_bytes(real.html, None, html=True) or "")[0]
        alone = read_metadata(tree, meta_contents(tree), content_language=None, url=real.url)
        assert (read.document.title, read.document.description) == (
            alone.title,
            alone.description,
        ), real.name
        cited += bool(read.citation)
    assert cited >= 3
