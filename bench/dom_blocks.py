"""The DOM-block classifier road of issue 15: record every block with its DOM features.

Used by bench/dom_block_classifier.py. `record_page` takes html_main's own blocks of one
page (`page_blocks`: every block the walk yields, before the keep and context rules) and
adds the rules' decision and raw DOM features: own tag, ancestor tags and class/id words
up to the walked node, depth, link share, text shape, position and neighbours.
`rebuild` turns a page's blocks and a set of block indices back into the text the hybrid
would score, so decisions can be varied without parsing the page again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from selectolax.lexbor import LexborHTMLParser, LexborNode  # noqa: E402

from sosoapi.extract import html_main as hm  # noqa: E402

_WORD = re.compile(r"[a-z]{2,}")


@dataclass(slots=True)
class RBlock:
    text: str
    kind: str  # para, heading, item, line, dropped
    base_kind: str  # the kind before the link rule: para, heading, item, line
    link_chars: int
    source: str  # lead, container, body
    tag: str
    path_tags: list[str]
    own_words: list[str]
    path_words: list[str]
    depth: int
    kept: bool = False


@dataclass(slots=True)
class Page:
    blocks: list[RBlock] = field(default_factory=list)
    page_chars: int = 0
    container_share: float = 1.0
    kept: list[int] = field(default_factory=list)


def _words(node: LexborNode) -> list[str]:
    attrs = node.attributes
    value = f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower()
    return _WORD.findall(value)


def walk(root: LexborNode, source: str, walked: list[hm.Walked]) -> list[RBlock]:
    """The blocks html_main walked under `root`, with the DOM around each block's element."""
    out: list[RBlock] = []
    memo: dict[int, tuple[list[str], list[str], int]] = {}
    for block in walked:
        owner = block.element
        key = owner.mem_id
        if key not in memo:
            tags: list[str] = []
            words: list[str] = []
            depth = 0
            node = owner.parent if owner.mem_id != root.mem_id else None
            while node is not None and node.mem_id != root.mem_id and depth < 12:
                tags.append(node.tag or "")
                words.extend(_words(node))
                depth += 1
                node = node.parent
            memo[key] = (tags, words, depth)
        tags, words, depth = memo[key]
        out.append(
            RBlock(
                text=block.text,
                kind=block.judged()[1],
                base_kind=block.kind,
                link_chars=block.link_chars,
                source=source,
                tag=owner.tag or "",
                path_tags=tags,
                own_words=_words(owner),
                path_words=words,
                depth=depth,
            )
        )
    return out


def record_page(markup: str) -> Page:
    """html_main's blocks of one page (`page_blocks`), each with its DOM features and the
    rules' decision."""
    page = Page()
    found = hm.page_blocks(LexborHTMLParser(markup, scripting=True))
    if found is None:
        return page
    for source, root, walked in found.groups:
        page.blocks.extend(walk(root, source, walked))
    page.page_chars = found.page_chars
    page.container_share = found.container_share
    page.kept = hm.kept_indices(found.judged())
    for index in page.kept:
        page.blocks[index].kept = True
    return page


def join(blocks: list[RBlock], indices: list[int]) -> str:
    """The text html_main makes of the chosen blocks."""
    return hm.joined([(blocks[index].text, blocks[index].base_kind) for index in indices])


def confident(page: Page, text: str) -> bool:
    """MainText.confident for this text."""
    share = len(text) / page.page_chars if page.page_chars else 1.0
    probe = hm.MainText(text, page.container_share, share)
    return probe.confident
