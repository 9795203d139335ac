"""The extractor's steps are linear in blocks and nodes (issue 35, item 2).

Work is counted, never timed: how often a step looks at a block or an ancestor. Each
count fails on the old code, which rescanned outward for every short block and walked
every ancestor of every selector match. bench/hostile.py measures the CPU by page size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from sosoapi.extract import html_blocks, html_container
from sosoapi.extract.html_blocks import kept_indices
from sosoapi.extract.html_container import in_furniture
from sosoapi.extract.html_main import extract_main
from sosoapi.extract.html_tuning import TUNING


class Counted:
    """Wraps a function of html_main and counts its calls."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real, self.calls = real, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.real(*args, **kwargs)


def test_short_blocks_are_judged_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 short paragraphs: each is measured once (the old rescan measured ~2 million)."""
    blocks = [(f"Line {n}", "para") for n in range(2_000)]
    counted = Counted(html_blocks._is_short)
    monkeypatch.setattr(html_blocks, "_is_short", counted)
    assert kept_indices(blocks) == []
    assert counted.calls <= 2 * len(blocks)


def _in_content_by_rescan(blocks: list[tuple[str, str]], index: int, kind: str) -> bool:
    """The rule as it was written before: scan outward to the nearest non-short blocks."""

    def nearest(indices: range) -> str | None:
        for at in indices:
            if not html_blocks._is_short(*blocks[at], TUNING):
                return blocks[at][1]
        return None

    after = nearest(range(index + 1, len(blocks)))
    if kind == "heading":
        return after not in (None, "dropped")
    before = nearest(range(index - 1, -1, -1))
    return after not in (None, "dropped") and before != "dropped"


_BLOCK = st.tuples(
    st.sampled_from(["Short", "A line of prose that is long enough to stand alone here."]),
    st.sampled_from(["para", "heading", "item", "line", "dropped"]),
)


@given(st.lists(_BLOCK, max_size=30))
def test_neighbour_kinds_are_those_the_rescan_found(blocks: list[tuple[str, str]]) -> None:
    short = [html_blocks._is_short(text, kind, TUNING) for text, kind in blocks]
    before, after = html_blocks._neighbour_kinds(blocks, short)
    for index, (_, kind) in enumerate(blocks):
        if short[index]:
            expected = _in_content_by_rescan(blocks, index, kind)
            assert html_blocks._in_content(kind, before[index], after[index]) == expected


def _nested(depth: int, opener: str) -> LexborHTMLParser:
    levels = "".join(
        f"{opener}Level {n} of the nested page, a line of prose long enough. " for n in range(depth)
    )
    return LexborHTMLParser(f"<html><body>{levels}{'</div>' * depth}</body></html>")


def test_nested_containers_judge_each_ancestor_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """500 nested `article-body` containers: each node's names are read once while the
    containers are chosen (the old walk read every ancestor of every match: ~125,000)."""
    tree = _nested(500, '<div class="article-body">')
    counted = Counted(html_container._names)
    monkeypatch.setattr(html_container, "_names", counted)
    text = extract_main(tree).text
    assert text.startswith("Level 0 of the nested page,")
    assert counted.calls <= 2 * 510


def test_a_shared_memo_gives_the_verdicts_of_fresh_walks() -> None:
    markup = (
        '<html><body><div class="comment-list"><div><p id="a">x</p></div></div>'
        '<nav><div><p id="b">y</p></div></nav><div class="story"><p id="c">z</p></div>'
        '<div class="modal-open_D(b)"><p id="d">w</p></div></body></html>'
    )
    body = LexborHTMLParser(markup).body
    assert body is not None
    nodes = body.css("p, div")
    fresh = [in_furniture(node, 1_000) for node in nodes]
    memo: dict[int, bool] = {}
    assert [in_furniture(node, 1_000, memo=memo) for node in nodes] == fresh
    assert fresh.count(True) == 5  # the comment list and what it holds, the nav's two


def test_outermost_keeps_document_order_and_drops_nested_and_repeated() -> None:
    tree = LexborHTMLParser(
        '<html><body><div id="a"><div id="b"><p id="c">x</p></div></div>'
        '<div id="d"><p id="e">y</p></div></body></html>'
    )
    by_id = {node.attributes["id"]: node for node in tree.css("[id]")}
    chosen = [by_id[name] for name in ("b", "c", "a", "e", "b", "d")]
    kept = html_container._outermost(chosen)
    assert [node.attributes["id"] for node in kept] == ["a", "d"]
