"""The tree builder's model (extract/html_tree.py) against Lexbor's own trees: on any markup
it counts at least the elements Lexbor builds and at least its depth, so the bound it sets
holds; on real pages and on the constructs that multiply elements it counts them exactly.

Lexbor's tree here leaves out what a `<template>` holds (selectolax does not walk into it),
which the model counts: there it may count more."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sosoapi.extract.html_bounds import MAX_DEPTH, MAX_NODES, bound_markup
from sosoapi.extract.html_tree import TreeModel
from sosoapi.extract.html_tree_names import quirks
from tests.extract.test_html_bounds import tree_size

DATA = Path(__file__).resolve().parents[1] / "data"


def modelled(markup: str) -> tuple[int, int]:
    """(elements, depth) the model counts for a page within the bounds."""
    counted: list[TreeModel] = []

    class Counting(TreeModel):
        __slots__ = ()

        def __init__(self, *, scripting: bool, quirks: bool) -> None:
            super().__init__(scripting=scripting, quirks=quirks)
            counted.append(self)

    from sosoapi.extract import html_bounds

    original = html_bounds.TreeModel
    html_bounds.TreeModel = Counting  # type: ignore[misc]
    try:
        assert not bound_markup(markup).nodes_limited
    finally:
        html_bounds.TreeModel = original  # type: ignore[misc]
    return counted[0].nodes, counted[0].depth


# Each multiplies or moves elements: formatting elements cloned at each block, the adoption
# agency (with Lexbor's list positions, which leave `strike` listed and cloned once more),
# a second `<a>`, tables and their implied sections, the customizable `<select>`, foreign
# content and its way out, a frameset replacing the body, Lexbor reading a `<textarea>`'s
# text as the body's, and a `</form>` taking its form off the stack wherever it is.
CONSTRUCTS = [
    "<p>" + "".join(f"<b class=c{n}><i>" for n in range(40)) + "<p>x" * 40,
    "<p><b>a<p>c<div>d</div>e",
    "<b><div><i></b>x",
    "<strike><strong><blockquote><a><s/><x><mi><div id=2></strike><applet>",
    "<a name=cert><H2><a name=source2></H2>\n",
    "<a><div><div><div><div><div><div><div><div><a href=x></div>\n",
    "<table><td>x<tr><th>y</table><table><caption>c<col><tbody><tr><td>z</table>",
    "<select><option><b>1<option>2</select>3<select><div><hr>x</select>",
    "<svg><title><div>x</div></title><circle/></svg><math><mi><b>y</b></mi></math><svg><p>z",
    "<title>t</title><frameset><frame><frameset><frame></frameset><div>no</div></frameset>",
    "<p><b></p><textarea>x</textarea>y",
    "<ul><small></ul>x<form><big></form><desc><meta>",
    "<form><b><div></b></form>x<form><i>y",
    "<table><td><form><div></td></form><form>z",
]


@pytest.mark.parametrize("markup", CONSTRUCTS)
def test_the_model_counts_what_lexbor_builds(markup: str) -> None:
    (counted, deepest), (elements, depth) = modelled(markup), tree_size(markup)
    # a frameset drops the body the model keeps under it
    assert counted == elements + ("<frameset>" in markup)
    assert depth <= deepest <= depth + 1


def _pages() -> list[Path]:
    folders = ("pages", "walls", "sign_in_widgets")
    return sorted(p for folder in folders for p in (DATA / folder).glob("*.html*"))


@pytest.mark.parametrize("page", _pages(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_pages_are_counted_within_what_lexbor_builds_and_never_cut(page: Path) -> None:
    raw = page.read_bytes()
    markup = (gzip.decompress(raw) if page.suffix == ".gz" else raw).decode("utf-8", "replace")
    elements, depth = tree_size(markup)
    counted, deepest = modelled(markup)
    assert elements <= counted <= elements * 1.7 + 10  # template contents, counted here only
    assert depth <= deepest  # more where an element left the stack (a misnested `</form>`)


NAMES = [
    "a",
    "b",
    "i",
    "u",
    "s",
    "em",
    "font",
    "nobr",
    "code",
    "small",
    "strong",
    "big",
    "strike",
    "tt",
    "div",
    "p",
    "span",
    "li",
    "ul",
    "ol",
    "dd",
    "dt",
    "dl",
    "h1",
    "h2",
    "blockquote",
    "section",
    "pre",
    "address",
    "center",
    "button",
    "table",
    "tr",
    "td",
    "th",
    "tbody",
    "thead",
    "caption",
    "col",
    "colgroup",
    "form",
    "select",
    "option",
    "optgroup",
    "template",
    "frameset",
    "frame",
    "object",
    "marquee",
    "applet",
    "ruby",
    "rt",
    "rp",
    "svg",
    "math",
    "mi",
    "mo",
    "title",
    "desc",
    "foreignObject",
    "annotation-xml",
    "textarea",
    "xmp",
    "plaintext",
    "noscript",
    "script",
    "style",
    "hr",
    "br",
    "img",
    "input",
    "image",
    "x",
    "o:p",
    "circle",
]
_ATTRIBUTES = ["", "", " id=1", " id=2", " color=red", ' encoding="text/html"', " type=hidden",
               ' title="a>b"']  # fmt: skip
tags = st.builds(
    lambda name, end, attrs, closed: f"</{name}>" if end else f"<{name}{attrs}{closed}>",
    st.sampled_from(NAMES),
    st.booleans(),
    st.sampled_from(_ATTRIBUTES),
    st.sampled_from(["", "", "", "/"]),
)
pieces = st.sampled_from(
    ["x", " ", "\n", "<!--c-->", "<!--", "-->", "<![CDATA[ <div> ]]>", "</", "<", "&lt;", "\0"]
)
soup = st.tuples(
    st.sampled_from(["", "<!DOCTYPE html>"]),
    st.lists(st.one_of(tags, tags, tags, pieces), max_size=60),
).map(lambda parts: parts[0] + "".join(parts[1]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soup)
def test_on_any_markup_the_model_counts_at_least_what_lexbor_builds(markup: str) -> None:
    elements, depth = tree_size(markup)
    counted, deepest = modelled(markup)
    assert counted >= elements and deepest >= depth


def test_quirks_mode_follows_the_doctype() -> None:
    assert quirks("<p>no doctype") and quirks("<!DOCTYPE html PUBLIC '-//W3C//DTD HTML 3.2//EN'>")
    assert not quirks("<!doctype html><p>") and not quirks("\n<!-- c --><!DOCTYPE HTML>")
    transitional = '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN"'
    assert quirks(transitional + ">")
    assert not quirks(transitional + ' "http://www.w3.org/TR/html4/loose.dtd">')
    # `<table>` closes an open `<p>` only outside quirks mode, as Lexbor builds it
    for doctype in ("", "<!DOCTYPE html>"):
        markup = doctype + "<p><b>x<table><td>y</table>z"
        assert modelled(markup) == tree_size(markup)


def test_the_bounds_are_the_module_s() -> None:
    assert (MAX_NODES, MAX_DEPTH) == (60_000, 1_000)


def test_the_stack_stays_the_same_list_when_elements_move_within_it() -> None:
    # the scan (extract/html_bounds.py) holds the model's stack and list across tokens:
    # the adoption agency and a misnested `</form>` rebuild the stack in place
    model = TreeModel(scripting=True, quirks=False)
    held = (model.stack, model.fmt, model.active, model.where, model.scope)
    for name in ("form", "b", "div", "i"):
        model.start(name, "", False)
    model.end("b")  # a furthest block: the stack is rebuilt
    model.end("form")  # the form leaves the stack from under the div
    assert model.lift == 1
    now = (model.stack, model.fmt, model.active, model.where, model.scope)
    assert all(kept is was for kept, was in zip(now, held, strict=True))
