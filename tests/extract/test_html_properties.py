"""Property tests: any markup extracts without raising and within every bound."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sosoapi.extract.html import extract_text_document
from sosoapi.extract.html_bounds import MAX_NODES
from sosoapi.extract.limits import DESCRIPTION_MAX, TEXT_MAX, TITLE_MAX
from sosoapi.extract.types import TextDocument

TAGS = ["div", "p", "span", "a", "table", "tr", "td", "ul", "li", "h1", "b", "script", "style",
        "nav", "footer", "article", "title", "meta", "br", "pre", "!--", "/div"]  # fmt: skip
ALLOWED_CONDITIONS = {"text_limited", "nodes_limited"}


def check(body: bytes, media_type: str | None = "text/html") -> list[TextDocument]:
    """Every extractor's document for `body`, each within every bound.

    Only bytes that no charset decodes may give None, and UTF-8 always decodes: a giving-up
    extractor must not make the bounds pass by having nothing to check.
    """
    docs = [
        extract_text_document(
            body, media_type=media_type, charset=None, content_language=None, extractor=extractor
        )
        for extractor in ("trafilatura", "lexbor", "hybrid")
    ]
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        assert None not in docs, docs
    kept = [doc for doc in docs if doc is not None]
    for doc in kept:
        check_bounds(doc)
    return kept


def check_bounds(doc: TextDocument) -> None:
    assert len(doc.text) <= TEXT_MAX
    assert doc.title is None or 0 < len(doc.title) <= TITLE_MAX
    assert doc.description is None or 0 < len(doc.description) <= DESCRIPTION_MAX
    assert set(doc.conditions) <= ALLOWED_CONDITIONS


tag_soup = st.lists(
    st.one_of(
        st.sampled_from(TAGS).map(lambda t: f"<{t}>"),
        st.sampled_from(TAGS).map(lambda t: f"</{t}>"),
        st.text(max_size=30),
        st.sampled_from(["<", ">", "&amp;", "&#x0;", "<meta name=description content='", "'"]),
    ),
    max_size=200,
).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tag_soup, st.sampled_from(["text/html", "application/xhtml+xml", "text/plain", None]))
def test_random_markup_never_raises(markup: str, media_type: str | None) -> None:
    check(markup.encode("utf-8", "surrogatepass"), media_type)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000), st.sampled_from(["text/html", "text/plain", None]))
def test_random_bytes_never_raise(body: bytes, media_type: str | None) -> None:
    check(body, media_type)


@settings(max_examples=5, deadline=None)
@given(st.sampled_from(["div", "span", "table", "ul", "blockquote", "a", "font"]),
       st.integers(min_value=20_000, max_value=100_000))  # fmt: skip
def test_deep_nesting_is_bounded(tag: str, depth: int) -> None:
    docs = check((f"<{tag}>" * depth + "text" + f"</{tag}>" * depth).encode())
    # a `<table>` or `<a>` closes the one before (siblings, not nesting): those are cut
    # only past the node bound, html, head and body counted
    cut = depth + 3 > MAX_NODES if tag in ("table", "a") else True
    assert len(docs) == 3 and all(("nodes_limited" in doc.conditions) == cut for doc in docs)


def test_huge_attribute_list_is_bounded() -> None:
    attrs = " ".join(f"a{i}=v" for i in range(200_000))
    docs = check(f"<html><body><div {attrs}>text</div></body></html>".encode())
    assert len(docs) == 3
