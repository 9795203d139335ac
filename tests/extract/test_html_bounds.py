"""The linear pre-scan that bounds markup before parsing."""

from __future__ import annotations

from sosoapi.extract.html_bounds import (
    MAX_ATTRIBUTES,
    MAX_DEPTH,
    MAX_NODES,
    bound_markup,
    scan_bounds,
)


def test_ordinary_markup_is_untouched() -> None:
    markup = "<html><body><div class='a'><p>x<p>y<br><img src=a.png></div></body></html>"
    assert bound_markup(markup).markup == markup
    assert not bound_markup(markup).nodes_limited


def test_node_bound_cuts_before_the_first_tag_past_it() -> None:
    markup = "<b>x</b>" * (MAX_NODES + 10)
    bounded = bound_markup(markup)
    assert bounded.nodes_limited
    assert bounded.markup.count("<b>") == MAX_NODES


def test_depth_bound_cuts_deep_nesting_but_not_flat_repeats() -> None:
    deep = bound_markup("<div>" * (MAX_DEPTH + 50))
    assert deep.nodes_limited and deep.markup.count("<div>") == MAX_DEPTH
    flat = "<ul>" + "<li>item" * (MAX_DEPTH * 3) + "</ul>" + "<p>para" * (MAX_DEPTH * 3)
    assert not bound_markup(flat).nodes_limited
    closed = "<div><span>a</span></div>" * (MAX_DEPTH * 2)
    assert not bound_markup(closed).nodes_limited


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
    # The fast check must read raw text as the scan does: `</SCRIPT` ends it in any case,
    # and the deep nesting after it counts.
    hidden = "<div>" * 5
    markup = f"<SCRIPT type=x>{hidden}</div></ScRiPt >" + "<div>" * (MAX_DEPTH + 1)
    bounded = bound_markup(markup)
    assert bounded.nodes_limited
    assert bounded == scan_bounds(markup)


def test_stray_end_tags_do_not_buy_depth() -> None:
    # Depth never drops below zero, so end tags without a start do not offset later nesting.
    markup = "</div>" * 50 + "<div>" * (MAX_DEPTH + 1)
    bounded = bound_markup(markup)
    assert bounded.nodes_limited
    assert bounded == scan_bounds(markup)
