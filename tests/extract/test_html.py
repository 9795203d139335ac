"""extract_text_document on hand-made pages: one test per rule of the url_text contract."""

from __future__ import annotations

import codecs
import gzip
from pathlib import Path

import pytest

from sosoapi.extract.html import extract_text_document
from sosoapi.extract.limits import TEXT_MAX, cut_at_paragraph_end

ARTICLE = [
    "The river rose four metres overnight and the old bridge, built in 1871, finally gave way "
    "shortly before dawn, witnesses said.",
    "Engineers had warned the council in March that the foundations were eroding faster than "
    "expected, according to documents seen by this newspaper.",
    "Residents on both banks are now cut off from the town centre, and the nearest crossing is "
    "twelve kilometres downstream near the weir.",
    "The council said a temporary footbridge could be in place within six weeks, but it gave "
    "no estimate for a permanent replacement of the structure.",
]


def page(body: str, head: str = "", html_attrs: str = "") -> bytes:
    return (
        f"<!DOCTYPE html><html{html_attrs}><head><meta charset='utf-8'>{head}</head>"
        f"<body>{body}</body></html>"
    ).encode()


EXTRACTORS = pytest.mark.parametrize("extractor", ["trafilatura", "lexbor", "hybrid"])


def extract(body: bytes, media_type: str | None = "text/html", **kw: str | None):
    kw.setdefault("charset", None)
    kw.setdefault("content_language", None)
    kw.setdefault("extractor", "trafilatura")
    doc = extract_text_document(body, media_type=media_type, **kw)  # type: ignore[arg-type]
    assert doc is not None
    return doc


def article_page() -> bytes:
    paragraphs = "".join(f"<p>{p}</p>" for p in ARTICLE)
    return page(
        "<div id='cookie-banner' class='cookie-consent'><p>We use cookies to improve your "
        "experience. Accept all cookies or manage your preferences.</p>"
        "<button>Accept</button></div>"
        "<header><nav><ul><li><a href='/'>Home</a></li><li><a href='/world'>World</a></li>"
        "<li><a href='/sport'>Sport</a></li><li><a href='/weather'>Weather</a></li></ul></nav>"
        "</header>"
        f"<main><article><h1>Old bridge collapses after flood</h1>{paragraphs}</article>"
        "<section id='comments' class='comments'><h3>Comments</h3>"
        "<div class='comment'><p>Reader comment: this was always going to happen, what a "
        "disgrace from the council honestly.</p></div></section></main>"
        "<aside class='sidebar'><h3>Most read</h3><ul><li><a href='/a'>Celebrity spotted at "
        "beach party</a></li><li><a href='/b'>Ten recipes for autumn evenings</a></li></ul>"
        "</aside><footer><p>Copyright 2024 Example News Ltd. All rights reserved.</p>"
        "<a href='/privacy'>Privacy policy</a> <a href='/terms'>Terms of use</a></footer>",
        head="<title>Old bridge collapses after flood | Example News</title>"
        "<meta property='og:site_name' content='Example News'>",
    )


@EXTRACTORS
def test_main_text_keeps_article_and_drops_boilerplate(extractor: str) -> None:
    doc = extract(article_page(), url="https://www.example-news.com/bridge", extractor=extractor)
    for paragraph in ARTICLE:
        assert paragraph in doc.text
    for boilerplate in ("cookies", "Most read", "Copyright", "Privacy policy", "Reader comment"):
        assert boilerplate not in doc.text
    assert "Weather" not in doc.text
    assert doc.conditions == ()


@EXTRACTORS
def test_paragraphs_are_separated_by_blank_lines_in_reading_order(extractor: str) -> None:
    doc = extract(article_page(), extractor=extractor)
    positions = [doc.text.index(p) for p in ARTICLE]
    assert positions == sorted(positions)
    assert f"{ARTICLE[0]}\n\n{ARTICLE[1]}" in doc.text


def test_title_prefers_og_title_and_strips_site_name() -> None:
    doc = extract(article_page(), url="https://www.example-news.com/bridge")
    assert doc.title == "Old bridge collapses after flood"
    og = page("<p>x</p>", head="<meta property='og:title' content=' Og  title '><title>T</title>")
    assert extract(og).title == "Og title"


def test_title_falls_back_to_h1_and_keeps_unsafe_separators() -> None:
    assert extract(page("<h1>Only <b>heading</b></h1><p>x</p>")).title == "Only heading"
    doc = extract(page("<p>x</p>", head="<title>Rust - the good parts</title>"))
    assert doc.title == "Rust - the good parts"


def test_description_order_and_blank_is_none() -> None:
    head = (
        "<meta name='description' content='  '>"
        "<meta property='og:description' content='From OpenGraph'>"
        "<meta name='twitter:description' content='From Twitter'>"
    )
    assert extract(page("<p>x</p>", head=head)).description == "From OpenGraph"
    assert extract(page("<p>x</p>")).description is None
    twitter = "<meta name='twitter:description' content='From Twitter'>"
    assert extract(page("<p>x</p>", head=twitter)).description == "From Twitter"


def test_title_and_description_respect_contract_bounds() -> None:
    head = f"<title>{'word ' * 100}</title><meta name='description' content='{'x ' * 2000}'>"
    doc = extract(page("<p>x</p>", head=head))
    assert doc.title is not None and len(doc.title) <= 200
    assert doc.description is not None and len(doc.description) <= 2000


def test_language_declarations_in_order() -> None:
    body = "<p>text</p>"
    assert extract(page(body, html_attrs=" lang='de_AT'")).language == "de-AT"
    xml = page(body, html_attrs=" lang='' xml:lang='fr'")
    assert extract(xml, content_language="en").language == "fr"
    meta = page(body, head="<meta http-equiv='Content-Language' content='es, en'>")
    assert extract(meta, content_language="en").language == "es"
    assert extract(page(body), content_language="pt-BR").language == "pt-BR"
    assert extract(page(body, html_attrs=" lang='fr_FR_extraordinarily_long_x'")).language is None
    assert extract(page(body)).language is None


@EXTRACTORS
def test_tables_become_readable_rows_and_lists_lines(extractor: str) -> None:
    rows = "".join(
        f"<tr><td>{city}</td><td>{n}</td></tr>"
        for city, n in (("Lyon", "522,000 inhabitants"), ("Nantes", "320,000 inhabitants"))
    )
    body = (
        f"<article><h1>City sizes</h1><p>{ARTICLE[0]}</p><table>{rows}</table>"
        f"<p>{ARTICLE[1]}</p><ul><li>First point of the list</li>"
        f"<li>Second point of the list</li></ul><p>{ARTICLE[2]}</p></article>"
    )
    doc = extract(page(body), extractor=extractor)
    lines = doc.text.splitlines()
    assert any("Lyon" in line and "522,000 inhabitants" in line for line in lines)
    assert any(line.endswith("First point of the list") for line in lines)
    assert not any("First point" in line and "Second point" in line for line in lines)


@EXTRACTORS
def test_text_is_cut_at_a_clean_boundary(extractor: str) -> None:
    sentence = "This sentence belongs to a very long article about nothing in particular. "
    paragraphs = "".join(f"<p>Part {i}. {sentence * 5}</p>" for i in range(200))
    body = f"<article>{paragraphs}</article>"
    doc = extract(page(body), extractor=extractor)
    assert "text_limited" in doc.conditions
    assert len(doc.text) <= TEXT_MAX
    assert doc.text.endswith("particular.")


def test_plain_text_is_itself() -> None:
    body = b"  First line\r\nsecond line   \r\n\r\n\r\n\r\n<p>not markup here</p>\n"
    doc = extract(body, media_type="text/plain", content_language="en_GB")
    assert doc.text == "First line\nsecond line\n\n<p>not markup here</p>"
    assert (doc.title, doc.description, doc.language) == (None, None, "en-GB")


def test_plain_text_cut_reports_text_limited() -> None:
    doc = extract(("word " * 10_000).encode(), media_type="text/plain")
    assert doc.conditions == ("text_limited",)
    assert len(doc.text) <= TEXT_MAX and doc.text.endswith("word")


def test_sniffing_without_media_type() -> None:
    assert extract(article_page(), media_type=None).title == "Old bridge collapses after flood"
    plain = extract(b"a <b> is not a page", media_type=None)
    assert plain.text == "a <b> is not a page"


@EXTRACTORS
def test_xhtml_is_parsed_as_markup(extractor: str) -> None:
    body = (
        b"<?xml version='1.0' encoding='utf-8'?>\n<html xmlns='http://www.w3.org/1999/xhtml' "
        b"xml:lang='nl'><head><title>Een titel</title></head><body><article><p>"
        + ARTICLE[0].encode()
        + b"</p><p>"
        + ARTICLE[1].encode()
        + b"</p></article></body></html>"
    )
    doc = extract(body, media_type="application/xhtml+xml", extractor=extractor)
    assert doc.language == "nl" and doc.title == "Een titel"
    assert ARTICLE[0] in doc.text


def test_metadata_only_page_has_empty_text() -> None:
    head = "<title>Just a title</title><meta name='description' content='And a description'>"
    doc = extract(page("", head=head))
    assert doc.text == ""
    assert (doc.title, doc.description) == ("Just a title", "And a description")


def charset_page(text: str, encoding: str, meta: str = "") -> bytes:
    body = f"<html><head>{meta}<title>{text}</title></head><body><p>{text}</p></body></html>"
    return body.encode(encoding)


def test_charset_from_header() -> None:
    doc = extract(charset_page("Größe über Maß", "iso-8859-15"), charset="ISO-8859-15")
    assert doc.title == "Größe über Maß"


def test_charset_bom_beats_header() -> None:
    body = codecs.BOM_UTF8 + charset_page("naïve café", "utf-8")
    assert extract(body, charset="iso-8859-1").title == "naïve café"
    utf16 = codecs.BOM_UTF16_LE + charset_page("日本語のページ", "utf-16-le")
    assert extract(utf16, media_type=None).title == "日本語のページ"


def test_charset_from_meta() -> None:
    body = charset_page("Привет мир", "koi8-r", meta="<meta charset='koi8-r'>")
    assert extract(body).title == "Привет мир"
    equiv = "<meta http-equiv='Content-Type' content='text/html; charset=windows-1251'>"
    assert extract(charset_page("Привет мир", "cp1251", meta=equiv)).title == "Привет мир"


def test_undeclared_cp1252_is_detected() -> None:
    text = (
        "Die Straße führt über die Brücke – „schön“, sagte der Bürgermeister. Größere "
        "Fahrzeuge müssen einen Umweg über Köln fahren; die Sperrung dauert bis März."
    )
    assert extract(charset_page(text, "cp1252")).title == text


def test_undeclared_cp1252_french_is_detected() -> None:
    """charset-normalizer's first guess is cp1257 here; browsers read it as windows-1252."""
    text = "Les élèves déjà présents à l’école reçoivent leurs résultats « très » tôt"
    assert extract(charset_page(text, "cp1252")).title == text


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Zażółć gęślą jaźń, to jest krótki polski tekst o życiu.", "cp1250"),
        ("Привет, как дела? Это короткий текст на русском языке.", "cp1251"),
    ],
)
def test_undeclared_text_that_is_mojibake_in_cp1252_keeps_the_detected_charset(
    text: str, encoding: str
) -> None:
    assert extract(charset_page(text, encoding)).title == text


def test_undecodable_bytes_are_none() -> None:
    binary = bytes(range(256)) * 64
    for media_type in ("text/plain", "text/html", None):
        doc = extract_text_document(
            binary, media_type=media_type, charset=None, content_language=None
        )
        assert doc is None


@EXTRACTORS
def test_node_bound_uses_the_prefix(extractor: str) -> None:
    body = f"<article><p>{ARTICLE[0]}</p><p>{ARTICLE[1]}</p></article>" + "<span>x</span>" * 70_000
    doc = extract(page(body), extractor=extractor)
    assert "nodes_limited" in doc.conditions
    assert ARTICLE[0] in doc.text


def test_deep_nesting_is_bounded() -> None:
    doc = extract(("<div>" * 100_000 + "deep").encode())
    assert doc.conditions == ("nodes_limited",)


def test_lexbor_drops_link_lists_their_headings_and_stamps() -> None:
    related = "".join(f"<li><a href='/{i}'>Related story number {i}</a></li>" for i in range(6))
    body = (
        f"<article><p>Posted 12.03.2021</p><p>{ARTICLE[0]}</p><p>{ARTICLE[1]}</p>"
        f"<h2>You might also like</h2><ul>{related}</ul><p>{ARTICLE[2]}</p></article>"
    )
    doc = extract(page(body), extractor="lexbor")
    assert ARTICLE[0] in doc.text and ARTICLE[2] in doc.text
    for gone in ("12.03.2021", "You might also like", "Related story"):
        assert gone not in doc.text


def test_lexbor_without_article_markup_finds_the_densest_block() -> None:
    menu = "".join(f"<a href='/{i}'>Menu entry {i}</a> " for i in range(20))
    body = (
        f"<div class='top'>{menu}</div><div class='x'>"
        + "".join(f"<div>{p}</div>" for p in ARTICLE)
        + f"</div><div class='bottom'>{menu}</div>"
    )
    doc = extract(page(body), extractor="lexbor")
    assert all(p in doc.text for p in ARTICLE)
    assert "Menu entry" not in doc.text


def _real_paragraphs() -> list[str]:
    """The paragraphs of the real pages in tests/data/pages, as our extractor gives them."""
    found = []
    for path in sorted((Path(__file__).parent.parent / "data" / "pages").glob("*.html.gz")):
        doc = extract(gzip.decompress(path.read_bytes()), extractor="lexbor")
        found += [p for p in doc.text.split("\n\n") if len(p) > 80]
    return found


def test_a_cut_long_text_stops_at_a_paragraph_end_not_inside_the_last_paragraph() -> None:
    """Real paragraphs up to 14,000 characters, then one paragraph of 8,000 (a long quote
    or a transcript): the cut drops that paragraph whole instead of stopping at one of
    its sentences, and says so."""
    real = _real_paragraphs()
    head: list[str] = []
    while sum(len(p) + 2 for p in head) < 14_000:
        head.append(real[len(head) % len(real)])
    long_paragraph = " ".join(real[i % len(real)] for i in range(60))[:8_000]
    text = "\n\n".join([*head, long_paragraph])
    cut, limited = cut_at_paragraph_end(text, TEXT_MAX)
    assert limited
    assert cut == "\n\n".join(head)


def test_a_cut_that_falls_on_a_paragraph_end_keeps_the_whole_window() -> None:
    text = "a" * 10_000 + "\n\n" + "b" * 9_998 + "\n\n" + "c" * 100
    assert cut_at_paragraph_end(text, TEXT_MAX) == (text[:TEXT_MAX], True)


@EXTRACTORS
def test_a_retrieved_long_page_is_cut_at_a_paragraph_end_with_text_limited(extractor: str) -> None:
    real = _real_paragraphs()
    body = "<article>" + "".join(f"<p>{real[i % len(real)]}</p>" for i in range(120)) + "</article>"
    doc = extract(page(body), extractor=extractor)
    assert "text_limited" in doc.conditions and len(doc.text) <= TEXT_MAX
    last = doc.text.split("\n\n")[-1]
    assert last in real  # the last paragraph is whole


def test_the_whole_text_is_kept_beside_the_receipts() -> None:
    paragraphs = [f"Paragraph {i} says something of its own." for i in range(3_000)]
    body = ("<html><body><article>" + "".join(f"<p>{p}</p>" for p in paragraphs)).encode()
    doc = extract(body)
    assert len(doc.text) <= TEXT_MAX and "text_limited" in doc.conditions
    assert doc.whole is not None and doc.whole.startswith(doc.text)
    assert doc.whole.endswith(paragraphs[-1])
    bounded = extract_text_document(
        body, media_type="text/html", charset=None, content_language=None, whole_max=50_000
    )
    assert bounded is not None and bounded.whole is not None
    assert 40_000 < len(bounded.whole) <= 50_000
    short = extract(b"<html><body><article><p>Short.</p></article></body></html>")
    assert short.whole is None
