"""Classes of page that used to come out wrong on public benchmarks, one test per class.

Each test reads a real page (tests/data/pages) or a real page's structure, because the
failure is a property of how pages are really written, not of a sample written to pass.
"""

from __future__ import annotations

import gzip
import html
import re
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from sosoapi.extract.charset import decode_bytes
from sosoapi.extract.html import MainTextExtractor, extract_text_document
from sosoapi.extract.html_main import extract_main
from sosoapi.extract.tracks import find_tracks
from tests.support.pages import RealPage, real_pages

PAGES = Path(__file__).resolve().parent.parent / "data" / "pages"
PEOPLE = PAGES / "people.cn.utf8-declared-gb2312.html.gz"
# Two paragraphs of the article as its publisher wrote them (the fixture's expected body).
PEOPLE_LEAD = "新华社北京4月24日电 题：促进航天技术更好惠及人民――习近平主席向首届“中国－拉美"
PEOPLE_QUOTE = "玻利维亚驻华公使衔参赞罗满月说，玻利维亚与中国在航天领域展开了诸多合作"


def main_text_of(body: bytes) -> str:
    doc = extract_text_document(body, media_type="text/html", charset=None, content_language=None)
    assert doc is not None
    return doc.text


def test_valid_utf8_declared_as_gb2312_is_read_as_utf8() -> None:
    body = gzip.decompress(PEOPLE.read_bytes())
    assert b"charset=GB2312" in body[:1024]  # the page really declares the legacy charset
    doc = extract_text_document(body, media_type="text/html", charset=None, content_language=None)
    assert doc is not None
    text = " ".join(doc.text.split())
    assert PEOPLE_LEAD in text and PEOPLE_QUOTE in text
    assert doc.title is not None and doc.title.startswith("促进航天技术更好惠及人民")


def test_valid_utf8_declared_gb2312_in_the_header_is_read_as_utf8_too() -> None:
    body = gzip.decompress(PEOPLE.read_bytes())
    text = decode_bytes(body, "gb2312", html=True)
    assert text is not None and PEOPLE_QUOTE in text and "\ufffd" not in text[:20_000]


def test_a_true_gb2312_page_keeps_its_declared_charset() -> None:
    """The same article really encoded in GB18030: not valid UTF-8, the label is right."""
    body = gzip.decompress(PEOPLE.read_bytes()).decode("utf-8").encode("gb18030")
    text = decode_bytes(body, None, html=True)
    assert text is not None and PEOPLE_QUOTE in text


def test_latin1_declared_text_that_is_not_utf8_keeps_its_charset() -> None:
    body = "<meta charset=iso-8859-1><p>Café crème, déjà vu.</p>".encode("cp1252")
    assert decode_bytes(body, None, html=True) == body.decode("cp1252")


def _broken_titles() -> list[tuple[str, bytes, str]]:
    """Each real page with its `</title>` left out, and closed by a mangled tag."""
    broken = []
    for real in real_pages():
        page = real.html.decode("utf-8")
        closing = re.search(r"</title\s*>", page, re.IGNORECASE)
        assert closing is not None
        for name, replacement in (("unclosed", ""), ("mangled", "</titl>")):
            body = (page[: closing.start()] + replacement + page[closing.end() :]).encode()
            broken.append((f"{real.name}-{name}", body, real.must_contain[0]))
    return broken


@pytest.mark.parametrize(("name", "body", "segment"), _broken_titles(), ids=lambda v: str(v)[:40])
@pytest.mark.parametrize("extractor", ["lexbor", "hybrid"])
def test_a_runaway_title_does_not_swallow_the_page(
    name: str, body: bytes, segment: str, extractor: MainTextExtractor
) -> None:
    doc = extract_text_document(
        body, media_type="text/html", charset=None, content_language=None, extractor=extractor
    )
    assert doc is not None
    assert " ".join(segment.split()) in " ".join(doc.text.split())
    assert doc.title is not None and len(doc.title) < 120  # the title, not the page


def test_tracks_after_a_runaway_title_are_found() -> None:
    page = (
        "<html><head><title>Forelesning 4</head><body><video src=/v.mp4>"
        '<track src="/no.vtt" srclang=nb kind=subtitles></video></body></html>'
    )
    found = find_tracks(page, "https://example.org/lecture")
    assert [t.src for t in found.tracks] == ["https://example.org/no.vtt"]
    assert found.title == "Forelesning 4"


@pytest.mark.parametrize("text", ["", "Menu", "Skip to content. Log in."])
def test_empty_or_tiny_text_is_never_confident(text: str) -> None:
    body = f"<html><body><main><p>{text}</p></main></body></html>"
    main = extract_main(LexborHTMLParser(body))
    assert not main.confident


def _paragraphs(real: RealPage) -> list[str]:
    return [p for p in main_text_of(real.html).split("\n\n") if len(p) > 80 and "\n" not in p][:6]


def _story(title: str, paragraphs: list[str], body_class: str) -> str:
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f"<article><header><h1>{html.escape(title)}</h1><p class=byline>By Staff</p></header>"
        f'<div class="{body_class}">{body}</div></article>'
    )


@pytest.mark.parametrize("body_class", ["entry-content", "article-body", "text"])
def test_an_infinite_scroll_page_does_not_append_the_next_article(body_class: str) -> None:
    """Two real blog posts as an infinite-scroll theme serves them: the second one, loaded
    under the first, is another article with its own headline."""
    first, second = real_pages()[1], real_pages()[0]
    own, next_story = _paragraphs(first), _paragraphs(second)
    page = (
        "<!doctype html><html><head><meta charset=utf-8><title>Post</title></head><body>"
        f"{_story('Leader spotlight', own, body_class)}"
        f"{_story('Testing client-side applications', next_story, body_class)}</body></html>"
    )
    text = main_text_of(page.encode())
    assert all(p in text for p in own)
    assert not any(p in text for p in next_story)


def test_an_article_body_split_around_an_ad_slot_is_kept_whole() -> None:
    own = _paragraphs(real_pages()[1])
    halves = (
        "".join(f"<p>{html.escape(p)}</p>" for p in own[:3]),
        "".join(f"<p>{html.escape(p)}</p>" for p in own[3:]),
    )
    page = (
        "<html><body><article><h1>Leader spotlight</h1>"
        f'<div class="entry-content">{halves[0]}</div><div class="ad-slot">Advertisement</div>'
        f'<div class="entry-content">{halves[1]}</div></article></body></html>'
    )
    assert all(p in main_text_of(page.encode()) for p in own)


# A 60-word blog post (a real one: flowfx.de, in tests/data/pages) and the boxes blog
# themes print beside it, each holding more prose than the post.
_ABOUT = (
    "Hi, I'm Kari. I write about small-space gardening, balcony vegetables and the occasional "
    "disaster. I live in a third-floor flat in Bergen with two cats, forty pots and far too "
    "many seed packets. This blog started in 2014 as a way to keep track of what worked and "
    "what did not, and it has grown into a community of balcony gardeners from all over."
)
_TAGLINE = (
    "Notes from a developer who moved back to Linux after many years on other systems: "
    "terminals, editors, window managers and the small scripts that glue a working day "
    "together, written down so that the next reinstall takes an afternoon instead of a week."
)
_CHROME_TOP = (
    '<div class="site-header"><a href="/">FlowFX</a> <a href="/archive">Archive</a> '
    '<a href="/tags">Tags</a> <a href="/rss.xml">RSS feed</a></div>'
)
_CHROME_BOTTOM = (
    '<div class="site-footer">All content is licensed under a Creative Commons licence. '
    "Powered by a static site generator. Contact: hello at this domain.</div>"
)
_BLOGROLL = (
    '<div class="blogroll"><h3>Blogroll</h3><ul><li><a href="https://a">Julia Evans</a></li>'
    '<li><a href="https://b">Simon Willison</a></li><li><a href="https://c">LWN</a></li></ul></div>'
)


def _post(real: RealPage) -> list[str]:
    return main_text_of(real.html).split("\n\n")


def _short_blog_layouts(paragraphs: list[str]) -> dict[str, str]:
    post = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return {
        "about-box-and-blogroll": (
            f'<div id="wrap"><div id="left"><div class="entry"><h2>Copy and paste from tmux</h2>'
            f'{post}</div></div><div id="right"><div class="about-box"><h3>About</h3>'
            f"<p>{_ABOUT}</p><p>{_TAGLINE}</p></div>{_BLOGROLL}</div></div>"
        ),
        "tagline-box-above": (
            f'<div class="wrap"><div class="tagline-box"><p>{_TAGLINE}</p><p>{_ABOUT}</p></div>'
            f'<div class="content"><div class="post"><h1>Copy and paste from tmux</h1>{post}'
            "</div></div></div>"
        ),
        "profile-widget-beside": (
            f'<div class="columns"><div class="col"><h1>Copy and paste from tmux</h1>{post}</div>'
            f'<div class="col"><div class="widget_profile"><p>{_ABOUT}</p></div>'
            f'<div class="widget_text"><p>{_TAGLINE}</p></div>{_BLOGROLL}</div></div>'
        ),
    }


@pytest.mark.parametrize(
    "layout", ["about-box-and-blogroll", "tagline-box-above", "profile-widget-beside"]
)
def test_a_short_blog_post_is_chosen_over_the_boxes_beside_it(layout: str) -> None:
    real = next(page for page in real_pages() if page.name.startswith("flowfx"))
    paragraphs = _post(real)
    body = _short_blog_layouts(paragraphs)[layout]
    page = f"<html><head><title>tmux</title></head><body>{_CHROME_TOP}{body}{_CHROME_BOTTOM}"
    text = " ".join(main_text_of(page.encode()).split())
    assert all(" ".join(p.split()) in text for p in paragraphs)
    assert _ABOUT[:40] not in text and _TAGLINE[:40] not in text


READABILITY_YAHOO = PAGES / "readability.yahoo-2.html.gz"
READABILITY_BUZZFEED = PAGES / "readability.buzzfeed-1.html.gz"


def test_an_article_in_an_atomic_css_overlay_is_not_furniture() -> None:
    """Yahoo opens the story in an overlay whose atomic CSS classes (`modal-open_D(b)`:
    shown while a modal is open) start with a furniture word; the story stream under it
    used to be taken for the article."""
    body = gzip.decompress(READABILITY_YAHOO.read_bytes())
    assert b"modal-open_D(b)" in body  # the page really styles its story with such tokens
    text = " ".join(main_text_of(body).split())
    assert "This is the third botched launch of a Russian spacecraft in two years." in text
    assert "Aerospace Writer Marcia Dunn in Cape Canaveral, Florida" in text
    assert "Trump's Carrier deal raises red flags" not in text  # the stream's headlines


def test_a_modal_named_by_a_word_is_still_furniture() -> None:
    """Only tokens with a parenthesis are styling; `login-modal` still names a dialog."""
    prose = "A sentence of the article body that is long enough to count as prose. " * 30
    dialog = "Sign in to keep reading this and every other article on the site today. " * 8
    page = (
        f'<html><body><div class="login-modal"><p>{dialog}</p></div>'
        f"<article><p>{prose}</p></article></body></html>"
    )
    text = main_text_of(page.encode())
    assert prose.split(".")[0] in text and dialog.split(".")[0] not in text


def test_a_sentence_citing_its_source_through_a_link_is_kept() -> None:
    """Most of the paragraph's text is its link, but it is a sentence of the article;
    the "Next On BuzzFeed News" link lines after the article still go."""
    body = gzip.decompress(READABILITY_BUZZFEED.read_bytes())
    text = " ".join(main_text_of(body).split())
    assert (
        "West Mercia police said the tablets were believed to contain dinitrophenol, "
        "known as DNP, which is a highly toxic industrial chemical." in text
    )
    assert "Next On BuzzFeed News" not in text
    assert "The Food Standards Agency warned people" in text
