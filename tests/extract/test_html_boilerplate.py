"""Pruning finds the elements Lexbor's FURNITURE_SELECTOR finds, though it matches class and
id words by regex: the same nodes, in document order, each once."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from sosoapi.extract.html_boilerplate import FURNITURE_SELECTOR, furniture_nodes

# Values at the edges of Lexbor's `[attr op 'value' i]`: ASCII-only case folding (not the
# long s of "ſidebar" or the Kelvin sign of "cooKie"), CSS white space between class tokens
# (not a vertical tab or a no-break space), `ad` only beside one kind of separator on both
# sides, whole ids, a duplicate attribute (the first counts), values outside ASCII, and
# nested furniture.
ATTRIBUTES = [
    'class="SideBar"', 'class="ſidebar"', 'class="coo\u212aie"', 'class="x\tAD"',
    'class="x\x0bad"', 'class="x\u00a0ad"', 'class="ad\n"', 'class="x\fads y"',
    'class="c-ad__box"', 'class="x-ad_y"', 'class="ad-slot"', 'class="mol_ad"',
    'class="x ad_"', 'class="head download"', 'class="bad"', 'class="nav-ad-"',
    'id="AD"', 'id=" ad"', 'id="ads"', 'id="x-ad"', 'id="Tools"', 'class="tools x"',
    "class", 'class="" id=""', 'class="a" class="ad"', 'class="ad" class="a"',
    'class="related" id="comments"', 'role="Navigation"', 'hidden class="x"',
    'style="Display:None"', 'aria-hidden="TRUE" class="share"', 'class="meta" role="menu"',
    'class="Grüße-AD"', 'class="ß\tNAV"', 'id="İads"', 'class="ＳＩＤＥＢＡＲ sidebar"',
]  # fmt: skip


def _selector_nodes(root) -> list[int]:
    found: list[int] = []
    for node in root.css(FURNITURE_SELECTOR):
        if not found or found[-1] != node.mem_id:
            found.append(node.mem_id)
    return found


@pytest.mark.parametrize("attributes", ATTRIBUTES)
def test_one_element_is_furniture_as_the_selector_says(attributes: str) -> None:
    tree = LexborHTMLParser(f"<body><div {attributes}>text</div><p>more</p></body>")
    body = tree.body
    assert body is not None
    assert [node.mem_id for node in furniture_nodes(body)] == _selector_nodes(body)


def test_a_page_of_them_is_found_in_order_each_once() -> None:
    nested = "".join(f"<div {attributes}><nav><span class='share'>" for attributes in ATTRIBUTES)
    tree = LexborHTMLParser(f"<body><aside class='sidebar'>{nested}x</aside><footer></footer>")
    body = tree.body
    assert body is not None
    found = [node.mem_id for node in furniture_nodes(body)]
    assert found == _selector_nodes(body)
    assert len(found) == len(set(found)) > len(ATTRIBUTES)
