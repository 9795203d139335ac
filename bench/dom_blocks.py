"""The DOM-block classifier road of issue 15: record every block with its DOM features.

Used by bench/dom_block_classifier.py. `record_page` reruns `html_main.extract_main`'s
steps on one page and returns every block the walk yields (before the keep and context
rules), with the rules' decision and raw DOM features: own tag, ancestor tags and class/id
words up to the walked node, depth, link share, text shape, position and neighbours.
`rebuild` turns a page's blocks and a set of block indices back into the text the hybrid
would score, so decisions can be varied without parsing the page again.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from selectolax.lexbor import LexborHTMLParser, LexborNode  # noqa: E402

from sosoapi.extract import html_main as hm  # noqa: E402
from sosoapi.extract.html_boilerplate import (  # noqa: E402
    NON_TEXT_TAGS,
    paragraph_chars,
    prune_furniture,
)

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


def walk(container: LexborNode, source: str) -> list[RBlock]:
    """html_main._blocks, also noting the block element each block's text sits in."""
    out: list[RBlock] = []
    raw: list[tuple[str, str, str, int, LexborNode]] = []
    current = hm.Block("para", [])
    link_depth = 0
    open_blocks: list[LexborNode] = []
    stack: list[tuple[LexborNode, bool]] = [(container, False)]

    def flush(block: hm.Block) -> hm.Block:
        if block.parts:
            text = block.text().strip(" |")
            if text:
                owner = open_blocks[-1] if open_blocks else container
                kind = block.kind if hm._keep(text, block.link_chars) else hm._DROPPED
                raw.append((text, kind, block.kind, block.link_chars, owner))
        return hm.Block("para", [])

    while stack:
        node, leaving = stack.pop()
        tag = node.tag
        if leaving:
            if tag == "a":
                link_depth -= 1
            elif tag in hm._BLOCK_TAGS:
                current = flush(current)
                open_blocks.pop()
            elif tag in hm._CELL_TAGS:
                current.parts.append(" | ")
            continue
        if tag == "-text":
            text = node.text_content or ""
            current.parts.append(text)
            if link_depth:
                current.link_chars += len(text.strip())
            continue
        if tag in ("-comment", "-doctype") or tag is None:
            continue
        if tag == "br":
            current.parts.append("\n")
            continue
        if tag == "a":
            link_depth += 1
        elif tag in hm._BLOCK_TAGS:
            current = flush(current)
            current.kind = hm._kind(tag)
            open_blocks.append(node)
        stack.append((node, True))
        children = []
        child = node.child
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend((c, False) for c in reversed(children))
    flush(current)
    root_id = container.mem_id
    memo: dict[int, tuple[list[str], list[str], int]] = {}
    for text, kind, base_kind, links, owner in raw:
        key = owner.mem_id
        if key not in memo:
            tags: list[str] = []
            words: list[str] = []
            depth = 0
            node = owner.parent if owner.mem_id != root_id else None
            while node is not None and node.mem_id != root_id and depth < 12:
                tags.append(node.tag or "")
                words.extend(_words(node))
                depth += 1
                node = node.parent
            memo[key] = (tags, words, depth)
        tags, words, depth = memo[key]
        out.append(
            RBlock(
                text=text,
                kind=kind,
                base_kind=base_kind,
                link_chars=links,
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
    """html_main.extract_main's steps, keeping every block and the rules' decisions."""
    tree = LexborHTMLParser(markup, scripting=True)
    page = Page()
    body = tree.body
    if body is None:
        return page
    tree.strip_tags(NON_TEXT_TAGS, recursive=True)
    page_chars = len(body.text(deep=True, strip=True))
    page_prose = paragraph_chars(body)
    containers = hm._containers(body, page_chars, page_prose)
    inside = sum(paragraph_chars(node) for node in containers)
    blocks: list[RBlock] = []
    for lead in hm._leading_prose(containers[0], page_chars) if containers else ():
        blocks.extend(walk(lead, "lead"))
    for container in containers:
        prune_furniture(container)
        blocks.extend(walk(container, "container"))
    if sum(len(b.text) for b in blocks if b.kind != hm._DROPPED) < hm._CONTAINER_MIN_CHARS:
        prune_furniture(body)
        blocks = walk(body, "body")
    page.blocks = blocks
    page.page_chars = page_chars
    page.container_share = inside / page_prose if page_prose else 1.0
    page.kept = kept_indices([(b.text, b.kind) for b in blocks])
    for index in page.kept:
        blocks[index].kept = True
    return page


def kept_indices(blocks: list[tuple[str, str]]) -> list[int]:
    """Indices of the blocks html_main._kept keeps, in order."""
    indices = []
    for index, (text, kind) in enumerate(blocks):
        if kind == hm._DROPPED:
            continue
        if kind == "heading" and hm._introduces_links(blocks, index + 1, text):
            continue
        if hm._is_short(text, kind) and not hm._in_content(blocks, index, kind):
            continue
        indices.append(index)
    kept = [blocks[i] for i in indices]
    tail = hm._trim_tail(kept)
    indices = indices[: len(tail)]
    if len(hm._trim_head(tail)) < len(tail):
        indices = indices[1:]
    return indices


def join(blocks: list[RBlock], indices: list[int]) -> str:
    """html_main._join over the chosen blocks (NFC, as extract_main returns it)."""
    pieces: list[str] = []
    previous = ""
    for index in indices:
        block = blocks[index]
        kind = block.base_kind
        line = f"- {block.text}" if kind == "item" else block.text
        grouped = kind in ("item", "line") and previous == kind
        if pieces:
            pieces.append("\n" if grouped else "\n\n")
        pieces.append(line)
        previous = kind
    return unicodedata.normalize("NFC", "".join(pieces))


def confident(page: Page, text: str) -> bool:
    """MainText.confident for this text."""
    share = len(text) / page.page_chars if page.page_chars else 1.0
    probe = hm.MainText(text, page.container_share, share)
    return probe.confident
