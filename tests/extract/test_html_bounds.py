"""The bound on what Lexbor builds: the scan cuts a page before the tree it makes would
pass the node or depth bound, counted as the tree builder really builds (extract/html_tree.py),
and each cut page's own tree, measured by Lexbor, is within the bounds."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from sosoapi.extract.html_bounds import MAX_ATTRIBUTES, MAX_DEPTH, MAX_NODES, bound_markup

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"


def tree_size(markup: str) -> tuple[int, int]:
    """(elements, depth) of the tree Lexbor builds, html, head and body included."""
    tree = LexborHTMLParser(markup, scripting=True)
    count = deepest = 0
    todo = [(tree.root, 1)]
    while todo:
        node, depth = todo.pop()
        count, deepest = count + 1, max(deepest, depth)
        child = node.child
        while child is not None:
            if child.tag is not None and child.tag[0] not in "-_#!":
                todo.append((child, depth + 1))
            child = child.next
    return count, deepest


def test_ordinary_markup_is_untouched() -> None:
    markup = "<html><body><div class='a'><p>x<p>y<br><img src=a.png></div></body></html>"
    assert bound_markup(markup).markup == markup
    assert not bound_markup(markup).nodes_limited


def test_node_bound_cuts_before_the_first_element_past_it() -> None:
    bounded = bound_markup("<b>x</b>" * (MAX_NODES + 10))
    assert bounded.nodes_limited
    assert tree_size(bounded.markup)[0] == MAX_NODES  # html, head and body count
    assert tree_size(bounded.markup + "<b>")[0] == MAX_NODES + 1


def test_depth_bound_cuts_deep_nesting_but_not_flat_repeats() -> None:
    deep = bound_markup("<div>" * (MAX_DEPTH + 50))
    assert deep.nodes_limited and tree_size(deep.markup)[1] == MAX_DEPTH
    flat = "<ul>" + "<li>item" * (MAX_DEPTH * 3) + "</ul>" + "<p>para" * (MAX_DEPTH * 3)
    assert not bound_markup(flat).nodes_limited
    closed = "<div><span>a</span></div>" * (MAX_DEPTH * 2)
    assert not bound_markup(closed).nodes_limited


# Each of these nests past the depth bound in Lexbor's tree while the scan before this one
# read it as flat: HTML ignores `/>` on a `<div>`; an end tag with nothing open of its name
# closes nothing; inside `<svg>`, `<title>` holds markup, not text; a script's `<!--` then
# `<script>` hides the `</script>` that the old scan took for its end, so what followed
# was read as an `<xmp>`'s text.
NESTING = {
    "self-closing divs": "<div/>" * (MAX_DEPTH + 10),
    "stray end tags": "<div></x>" * (MAX_DEPTH + 10),
    "svg title": "<svg><title>" + "<div>" * (MAX_DEPTH + 10),
    "script escapes": "<script><!--<script></script><xmp></script>" + "<div>" * (MAX_DEPTH + 10),
}


@pytest.mark.parametrize("markup", NESTING.values(), ids=NESTING.keys())
def test_nesting_the_parser_makes_is_cut_at_the_depth_bound(markup: str) -> None:
    assert tree_size(markup)[1] > MAX_DEPTH + 5
    bounded = bound_markup(markup)
    assert bounded.nodes_limited
    assert MAX_DEPTH - 5 < tree_size(bounded.markup)[1] <= MAX_DEPTH


def test_formatting_elements_cloned_at_every_block_count_towards_the_node_bound() -> None:
    # 600 tags become 90,000 elements: each `<p>` closes the 300 formatting elements
    # left open in the one before, and its text opens clones of all of them again.
    markup = "<p>" + "".join(f"<b class=c{n}>" for n in range(300)) + "<p>x" * 300
    assert tree_size(markup)[0] > MAX_NODES
    bounded = bound_markup(markup)
    assert bounded.nodes_limited
    assert MAX_NODES - 400 < tree_size(bounded.markup)[0] <= MAX_NODES


def test_foreign_self_closing_tags_and_quoted_brackets_do_not_count_as_nesting() -> None:
    icons = "<svg>" + '<circle r="1"/>' * (MAX_DEPTH * 2) + "</svg>"
    quoted = '<p title="' + "<div>" * (MAX_DEPTH * 2) + '">x</p>'
    for markup in (icons, quoted):
        bounded = bound_markup(markup)
        assert not bounded.nodes_limited and bounded.markup == markup


@pytest.mark.parametrize(
    "page", ["self_closing", "stray_end_tags", "foreign_raw_text", "formatting_clones"]
)
def test_each_hostile_page_is_cut_to_a_tree_within_the_bounds(page: str) -> None:
    markup = gzip.decompress((HOSTILE / f"{page}.html.gz").read_bytes()).decode()
    bounded = bound_markup(markup)
    assert bounded.nodes_limited
    elements, depth = tree_size(bounded.markup)
    assert elements <= MAX_NODES and depth <= MAX_DEPTH


def test_tags_inside_comments_and_scripts_are_not_counted() -> None:
    hidden = "<div>" * (MAX_DEPTH + 5)
    markup = f"<!-- {hidden} --><script>var s = '{hidden}';</script><p>after</p>"
    bounded = bound_markup(markup)
    assert not bounded.nodes_limited and bounded.markup == markup


def test_oversized_attribute_list_is_stripped() -> None:
    attrs = " ".join(f"a{i}=1" for i in range(MAX_ATTRIBUTES + 1))
    bounded = bound_markup(f"<p>before</p><div {attrs}>kept</div>")
    assert bounded.markup == "<p>before</p><div>kept</div>"
    normal = " ".join(f"a{i}='{'long value ' * 20}'" for i in range(MAX_ATTRIBUTES))
    assert bound_markup(f"<div {normal}>x</div>").markup == f"<div {normal}>x</div>"


def test_unterminated_constructs_end_the_scan() -> None:
    for markup in ("<div class='x", "<!-- open comment <div>", "<script>never closed <div>"):
        assert bound_markup(markup).markup == markup


def test_a_raw_text_element_hides_tags_up_to_its_own_end_tag_only() -> None:
    # `</SCRIPT` ends it in any case, and the deep nesting after it counts.
    hidden = "<div>" * 5
    markup = f"<SCRIPT type=x>{hidden}</div></ScRiPt >" + "<div>" * (MAX_DEPTH + 1)
    assert bound_markup(markup).nodes_limited


def test_stray_end_tags_do_not_buy_depth() -> None:
    markup = "</div>" * 50 + "<div>" * (MAX_DEPTH + 1)
    assert bound_markup(markup).nodes_limited
