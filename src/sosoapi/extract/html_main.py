"""Our main-content extractor: container choice, furniture pruning, block filtering.

1. Drop markup that is never text, then pick the content container: the first of the
   well-known article selectors (as trafilatura's BODY_XPATH) that holds enough text,
   else the element that collects the most paragraph text (as readability).
2. Prune furniture inside it (html_boilerplate).
3. Walk it once, iteratively, into blocks (paragraphs, headings, list items, table rows)
   with their link share, and drop link lists and short link-dominated blocks.
The walk is bounded by the pre-scan's node bound; nothing here is quadratic in depth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sosoapi.extract.html_boilerplate import NON_TEXT_TAGS, prune_furniture

# In order of trust; the first that holds enough text wins.
_CONTAINER_SELECTORS = (
    "[itemprop=articleBody i]",
    "[class*=article-body i], [class*=articlebody i], [class*=article__body i],"
    " [class*=story-body i], [class*=post-body i], [class*=entry-content i],"
    " [class*=post-content i], [class*=article-content i], [class*=article-text i],"
    " [class*=td-post-content i], [class*=single-content i], [class*=blog-content i],"
    " [id*=article-body i], [id*=articlebody i], [id*=story-body i], [id*=post-body i]",
    "article",
    "main, [role=main i]",
    "[class*=post i][class*=content i], [id=content i], [class=content i], [id=main i]",
)
_CONTAINER_MIN_CHARS = 400

_BLOCK_TAGS = frozenset(
    {
        "p", "div", "section", "article", "main", "header", "blockquote", "pre", "figure",
        "figcaption", "ul", "ol", "dl", "dt", "dd", "li", "table", "tbody", "thead", "tfoot",
        "tr", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "address", "center", "form",
        "fieldset", "details", "summary", "body", "html", "caption",
    }
)  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_LINE_TAGS = frozenset({"li", "tr", "dt", "dd"})
_CELL_TAGS = frozenset({"td", "th"})
_SPACE = re.compile(r"[ \t\n\r\f\v\u00a0\u200b]+")

# A block whose text is mostly links is navigation unless it is long.
_MAX_LINK_SHARE = 0.5
_LONG_BLOCK = 300


@dataclass(slots=True)
class Block:
    """One output line or paragraph under construction."""

    kind: str  # "para", "heading", "line"
    parts: list[str]
    link_chars: int = 0

    def text(self) -> str:
        return _SPACE.sub(" ", "".join(self.parts)).strip()


def main_text(tree: LexborHTMLParser) -> str:
    """The page's main content: blank-line paragraphs, one line per heading/item/row."""
    body = tree.body
    if body is None:
        return ""
    tree.strip_tags(NON_TEXT_TAGS, recursive=True)
    container = _container(body)
    prune_furniture(container)
    blocks = _blocks(container)
    if container.mem_id != body.mem_id and sum(len(b) for b, _ in blocks) < _CONTAINER_MIN_CHARS:
        prune_furniture(body)
        blocks = _blocks(body)
    return _join(blocks)


def _container(body: LexborNode) -> LexborNode:
    for selector in _CONTAINER_SELECTORS:
        best: LexborNode | None = None
        best_len = 0
        for node in body.css(selector):
            length = len(node.text(deep=True, strip=True))
            if length > best_len:
                best, best_len = node, length
        if best is not None and best_len >= _CONTAINER_MIN_CHARS:
            return best
    return _densest(body)


def _densest(body: LexborNode) -> LexborNode:
    """readability's rule: the parent that collects the most paragraph text wins."""
    scores: dict[int, tuple[float, LexborNode]] = {}
    for paragraph in body.css("p, pre, td, blockquote"):
        length = len(paragraph.text(deep=True, strip=True))
        if length < 25:
            continue
        score = 1 + min(length / 100, 3)
        parent = paragraph.parent
        for share in (1.0, 0.5):
            if parent is None:
                break
            held = scores.get(parent.mem_id)
            scores[parent.mem_id] = ((held[0] if held else 0.0) + score * share, parent)
            parent = parent.parent
    if not scores:
        return body
    return max(scores.values(), key=lambda item: item[0])[1]


def _blocks(container: LexborNode) -> list[tuple[str, str]]:
    """(text, kind) of every kept block under `container`, in document order."""
    out: list[tuple[str, str]] = []
    current = Block("para", [])
    link_depth = 0
    # Iterative pre-order walk with explicit exits, so depth costs no recursion.
    stack: list[tuple[LexborNode, bool]] = [(container, False)]
    while stack:
        node, leaving = stack.pop()
        tag = node.tag
        if leaving:
            if tag == "a":
                link_depth -= 1
            elif tag in _BLOCK_TAGS:
                current = _flush(current, out)
            elif tag in _CELL_TAGS:
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
        elif tag in _BLOCK_TAGS:
            current = _flush(current, out)
            current.kind = _kind(tag)
        stack.append((node, True))
        children = []
        child = node.child
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend((c, False) for c in reversed(children))
    _flush(current, out)
    return out


def _kind(tag: str) -> str:
    if tag in _HEADINGS:
        return "heading"
    if tag in _LINE_TAGS:
        return "item" if tag == "li" else "line"
    return "para"


def _flush(block: Block, out: list[tuple[str, str]]) -> Block:
    """Keep the block unless it is empty or a short run of links; start a new one."""
    if block.parts:
        text = block.text().strip(" |")
        if text and _keep(text, block.link_chars):
            out.append((text, block.kind))
    return Block("para", [])


def _keep(text: str, link_chars: int) -> bool:
    length = len(text)
    return not (length < _LONG_BLOCK and link_chars > _MAX_LINK_SHARE * length)


def _join(blocks: list[tuple[str, str]]) -> str:
    """Paragraphs and headings apart by a blank line; items and rows one per line."""
    pieces: list[str] = []
    previous = ""
    for text, kind in blocks:
        line = f"- {text}" if kind == "item" else text
        grouped = kind in ("item", "line") and previous == kind
        if pieces:
            pieces.append("\n" if grouped else "\n\n")
        pieces.append(line)
        previous = kind
    return "".join(pieces)
