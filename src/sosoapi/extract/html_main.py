"""Our main-content extractor: container choice, furniture pruning, block filtering.

1. Drop markup that is never text, then pick the content container: the first of the
   well-known article selectors (as trafilatura's BODY_XPATH) that holds enough text and
   does not sit in furniture (a comment thread, related links, a dialog), then the page's
   main area (`<main>`, `#content`), narrowed to its densest block when that block holds
   most of the area's prose, else the element that collects the most paragraph text (as
   readability).
2. Prune furniture inside it (html_boilerplate).
3. Walk it once, iteratively, into blocks (paragraphs, headings, list items, table rows)
   with their link share, and drop link lists and short link-dominated blocks.
4. Judge short blocks by their context (as jusText): a short heading needs content after
   it, a short paragraph content on both sides, and short blocks after the last
   substantial paragraph label what follows the text (related links, share bars, tags),
   and a short first paragraph labels the text (kicker, breadcrumb, byline, date).
5. Say how sure the result is: a container holding little of the page's prose, or a
   short text cut from a page with much more text, is a guess (`MainText.confident`).
The walk is bounded by the pre-scan's node bound; nothing here is quadratic in depth.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sosoapi.extract.html_boilerplate import (
    FURNITURE_NAME_STARTS,
    FURNITURE_SELECTOR,
    LANDMARK_TAGS,
    NON_TEXT_TAGS,
    named_selector,
    paragraph_chars,
    prune_furniture,
    token_start_pattern,
)

# In order of trust (then _AREA_SELECTORS); the first that holds enough text wins.
_CONTAINER_SELECTORS = (
    "[itemprop=articleBody i]",
    "[class*=article-body i], [class*=articlebody i], [class*=article__body i],"
    " [class*=story-body i], [class*=post-body i], [class*=entry-content i],"
    " [class*=post-content i], [class*=article-content i], [class*=article-text i],"
    " [class*=td-post-content i], [class*=single-content i], [class*=blog-content i],"
    " [id*=article-body i], [id*=articlebody i], [id*=story-body i], [id*=post-body i]",
    "article",
)
# Wrappers of the page's main area: they may hold sidebars and widgets beside the text.
_AREA_SELECTORS = (
    "main, [role=main i]",
    "[class*=post i][class*=content i], [id=content i], [class=content i], [id=main i]",
)
_SCORED_BLOCKS = "p, pre, td, blockquote, div, section, dd, li, span, font"
# A class or id token that starts with a furniture word (html_boilerplate) names furniture.
_FURNITURE_NAME = token_start_pattern(FURNITURE_NAME_STARTS)
# Before the container, in an ancestor not much bigger than it, a "teaser" is the article's
# own lead ("teaser-text", "article-teaser"), not a teaser for another story.
_LEAD_FURNITURE_NAME = token_start_pattern(w for w in FURNITURE_NAME_STARTS if w != "teasers?")
# Boxes beside a post: an author box, an "about me" or profile box, a tagline, a blogroll,
# a sidebar widget. On a short blog post they hold more prose than the post, so the
# densest-block rule would choose them and growth would swallow them (readability weighs
# such names down for the same reason).
_BOX_WORDS = ("author", "about", "bio", "tagline", "blogroll", "profile", "widget", "sidebar")
_BOX_NAME = token_start_pattern(_BOX_WORDS)
_BOX_SELECTOR = named_selector(_BOX_WORDS)
_FURNITURE_ANCESTOR_TAGS = frozenset(LANDMARK_TAGS)

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
# CJK ideographs, kana, Hangul and full-width forms.
_WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")

_SENTENCE_ENDS = frozenset(".!?…\"'»”")
_DROPPED = "dropped"
# A short block that is a date or a time stamp is a byline or a comment header.
_STAMP = re.compile(r"\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{1,2}:\d{2}\b")
# A sentence: five or more words of letters, closed by a full stop, "!" or "?".
_SENTENCE = re.compile(r"^(?:[^\W\d]+[,;]?\s+){4,}[^\W\d]+[.!?…]$")

_LEAD_TAGS = "p, h2, div"
_LEAD_TAG_NAMES = frozenset({"p", "h2"})


@dataclass(frozen=True, slots=True)
class Tuning:
    """The thresholds of the rules above, in characters and shares. The defaults
    (`TUNING`) were chosen on the even half of extraction-dev (bench/README.md);
    bench/extraction_tune.py passes another to try one."""

    # A container needs this much text.
    container_min_chars: int = 400
    # Matches holding at least this share of the longest match are content too (a body
    # split around an image or ad slot; was 0.3).
    sibling_share: float = 0.1
    # A container holding less than this share of the page's paragraph text grows upwards,
    # at most this many steps.
    grow_share: float = 0.7
    grow_steps: int = 4
    # An area wrapper narrows to its densest block when that block holds this share of the
    # area's paragraph text (0.85 tied, 0.7 and 0.9 lost).
    narrow_share: float = 0.8
    # A box holding this share of the page's text is the page's own frame or content.
    box_max_share: float = 0.5
    # A furniture-named ancestor holding this share of the page's text is the page's frame.
    page_frame_share: float = 0.8
    # A block whose text is mostly links is navigation unless it is long (were 0.5, 300) ...
    max_link_share: float = 0.4
    long_block: int = 400
    # ... or a sentence with this much text outside its links (even halves of the three dev
    # sets: 60 gains a segment on fundus and on readability; 50 also keeps a photo credit
    # line and "See our coverage of <a>...</a> and <a>...</a>." glue between links).
    linked_sentence_prose: int = 60
    # A short block that is a date or a time stamp (_STAMP) is a byline or comment header.
    stamp_max: int = 40
    # Headings and paragraphs shorter than this are judged by their neighbours.
    short: int = 50
    # The text ends with its last block of at least `good_block` characters, or with
    # longer blocks than `short_tail` after it.
    good_block: int = 120
    short_tail: int = 60
    # A first paragraph shorter than this labels the text (a kicker, breadcrumb, byline or
    # date line) when prose (a block of `good_block` characters) follows.
    short_head: int = 80
    # Lead merging: how far up to look, how much bigger than the container an ancestor may
    # be, and what a lead looks like (readability's sibling rule: 80 characters, few links).
    lead_levels: int = 5
    lead_grow: float = 2.0
    lead_slack: int = 500
    lead_min_chars: int = 80
    lead_max_link_share: float = 0.25
    # Below these the container choice is a guess.
    sure_container_share: float = 0.5
    sure_length: int = 1000
    sure_text_share: float = 0.25
    # Empty or tiny text is never a sure result, whatever share of the page it is (a page
    # whose body a parser lost, or a shell of navigation): a fallback gets to try.
    sure_min_width: int = 100


TUNING = Tuning()


@dataclass(slots=True)
class Block:
    """One output line or paragraph under construction."""

    kind: str  # "para", "heading", "line"
    parts: list[str]
    link_chars: int = 0

    def text(self) -> str:
        return _SPACE.sub(" ", "".join(self.parts)).strip()


@dataclass(frozen=True, slots=True)
class MainText:
    """The main text, and the measures that say whether the container choice is sound."""

    text: str
    # Share of the page's prose paragraphs inside the chosen containers.
    container_share: float
    # Length of the text against the length of all text on the page.
    text_share: float
    tuning: Tuning = TUNING

    @property
    def confident(self) -> bool:
        """False when the text likely misses content: a fallback extractor should try."""
        if _width(self.text) < self.tuning.sure_min_width:
            return False
        if self.container_share < self.tuning.sure_container_share:
            return False
        return (
            len(self.text) >= self.tuning.sure_length
            or self.text_share >= self.tuning.sure_text_share
        )


@dataclass(slots=True)
class Walked:
    """One block as the walk met it, before any rule judged it."""

    text: str
    kind: str  # "para", "heading", "item", "line"
    link_chars: int
    element: LexborNode  # the innermost block element holding the text

    def judged(self, tuning: Tuning = TUNING) -> tuple[str, str]:
        """(text, kind), the kind `dropped` for a short run of links or a time stamp."""
        return self.text, self.kind if _keep(self.text, self.link_chars, tuning) else _DROPPED


@dataclass(frozen=True, slots=True)
class PageBlocks:
    """The blocks the main text is cut from, by the node walked and where it came from:
    `lead`, `container`, or `body` when the containers held too little text."""

    groups: list[tuple[str, LexborNode, list[Walked]]]
    page_chars: int
    container_share: float
    tuning: Tuning = TUNING

    def judged(self) -> list[tuple[str, str]]:
        return [block.judged(self.tuning) for _, _, blocks in self.groups for block in blocks]


def main_text(tree: LexborHTMLParser, tuning: Tuning = TUNING) -> str:
    """The page's main content: blank-line paragraphs, one line per heading/item/row."""
    return extract_main(tree, tuning).text


def extract_main(tree: LexborHTMLParser, tuning: Tuning = TUNING) -> MainText:
    """The page's main content, with how sure the container choice is. Edits `tree`."""
    page = page_blocks(tree, tuning)
    if page is None:
        return MainText("", 1.0, 1.0, tuning)
    text = joined(kept_blocks(page.judged(), tuning))
    return MainText(
        text=text,
        container_share=page.container_share,
        text_share=len(text) / page.page_chars if page.page_chars else 1.0,
        tuning=tuning,
    )


def page_blocks(tree: LexborHTMLParser, tuning: Tuning = TUNING) -> PageBlocks | None:
    """Steps 1-3: the containers chosen and pruned, walked into blocks. Edits `tree`."""
    body = tree.body
    if body is None:
        return None
    tree.strip_tags(NON_TEXT_TAGS, recursive=True)
    page_chars = len(body.text(deep=True, strip=True))
    page_prose = paragraph_chars(body)
    containers = _containers(body, page_chars, page_prose, tuning)
    inside = sum(paragraph_chars(node) for node in containers)
    leads = _leading_prose(containers[0], page_chars, tuning) if containers else []
    groups = [("lead", lead, _walk(lead)) for lead in leads]
    for container in containers:
        prune_furniture(container)
        groups.append(("container", container, _walk(container)))
    page = PageBlocks(groups, page_chars, inside / page_prose if page_prose else 1.0, tuning)
    if (
        sum(len(text) for text, kind in page.judged() if kind != _DROPPED)
        < tuning.container_min_chars
    ):
        prune_furniture(body)
        for box in _boxes(body, None):
            if len(box.text(deep=True, strip=True)) < tuning.box_max_share * page_chars:
                box.decompose()
        page = PageBlocks([("body", body, _walk(body))], page_chars, page.container_share, tuning)
    return page


def _containers(
    body: LexborNode, page_chars: int, page_prose: int, tuning: Tuning
) -> list[LexborNode]:
    """The content containers in document order: the best selector's substantial matches.

    A lone match of an area selector narrows to the block that holds most of its prose.
    """
    for selector in _CONTAINER_SELECTORS + _AREA_SELECTORS:
        chosen = _matches(body, selector, page_chars, tuning)
        if not chosen:
            continue
        if selector in _AREA_SELECTORS and len(chosen) == 1:
            chosen = [_narrowed(chosen[0], page_chars, tuning)]
        return _grow(chosen, page_prose, body, tuning)
    return _grow([_densest(body, page_chars, tuning)], page_prose, body, tuning)


def _matches(body: LexborNode, selector: str, page_chars: int, tuning: Tuning) -> list[LexborNode]:
    """The selector's substantial matches outside furniture, outermost, or none.

    Outermost first, then measured: a match inside another is never longer than it, so
    this keeps what measuring every match would, and nested matches (a hostile page nests
    hundreds) cost one reading of the text instead of one per level.
    """
    memo: dict[int, bool] = {}
    outer = _outermost(
        [
            node
            for node in body.css(selector)
            if not in_furniture(node, page_chars, memo=memo, tuning=tuning)
        ]
    )
    found = [(node, len(node.text(deep=True, strip=True))) for node in outer]
    found = [(node, length) for node, length in found if length]
    if not found or max(length for _, length in found) < tuning.container_min_chars:
        return []
    floor = max(length for _, length in found) * tuning.sibling_share
    return _own_story([node for node, length in found if length >= floor])


def _own_story(matches: list[LexborNode]) -> list[LexborNode]:
    """The matches up to the first later one that has a headline of its own: under
    infinite scroll the next article is appended with its own `<h1>` (inside the match,
    or in the header between the two bodies), while a body split around an image or an
    ad slot has none."""
    for index in range(1, len(matches)):
        node = matches[index]
        if node.css_first("h1") is not None or _headline_between(matches[index - 1], node):
            return matches[:index]
    return matches


def _headline_between(previous: LexborNode, node: LexborNode) -> bool:
    """An `<h1>` after `previous` and before `node`: in the siblings before `node` and
    before each of its ancestors, up to the one that holds `previous`."""
    current: LexborNode | None = node
    while current is not None and not _holds(current, previous):
        sibling = current.prev
        while sibling is not None:
            if _holds(sibling, previous):
                return False
            if sibling.tag == "h1" or (sibling.tag and sibling.css_first("h1") is not None):
                return True
            sibling = sibling.prev
        current = current.parent
    return False


def _holds(ancestor: LexborNode, node: LexborNode) -> bool:
    current: LexborNode | None = node
    while current is not None:
        if current.mem_id == ancestor.mem_id:
            return True
        current = current.parent
    return False


def _narrowed(area: LexborNode, page_chars: int, tuning: Tuning) -> LexborNode:
    """The densest block inside a page-area wrapper when it holds most of the area's prose.

    `<main>` or `#content` often wraps the article together with a sidebar, a partner
    strip or a list of coming events; the block readability would choose holds the
    article's paragraphs without them.
    """
    dense = _densest(area, page_chars, tuning)
    prose = paragraph_chars(area)
    if dense is area or not prose:
        return area
    return dense if paragraph_chars(dense) >= tuning.narrow_share * prose else area


def _leading_prose(container: LexborNode, page_chars: int, tuning: Tuning) -> list[LexborNode]:
    """Prose just before the container: a lead, teaser or subtitle kept apart from the body.

    readability's sibling merge, looking backwards: the preceding siblings of the container
    and of its near ancestors (while an ancestor is not much bigger than the container) give
    their paragraphs, `<h2>`s and text-only `<div>`s that are long enough, mostly unlinked
    and not furniture.
    Following siblings are not merged: there they are mostly comments and related links.
    """
    size = len(container.text(deep=True, strip=True))
    found: list[LexborNode] = []
    node = container
    for _ in range(tuning.lead_levels):
        parent = node.parent
        if parent is None or parent.tag in ("body", "html"):
            break
        if len(parent.text(deep=True, strip=True)) > tuning.lead_grow * size + tuning.lead_slack:
            break
        found = _prose_before(node, page_chars, tuning) + found
        node = parent
    return found


def _prose_before(node: LexborNode, page_chars: int, tuning: Tuning) -> list[LexborNode]:
    """Lead candidates in the siblings before `node`, in document order."""
    siblings: list[LexborNode] = []
    sibling = node.prev
    while sibling is not None:
        if sibling.tag and not sibling.tag.startswith("-"):
            siblings.append(sibling)
        sibling = sibling.prev
    found: list[LexborNode] = []
    memo: dict[int, bool] = {}
    for sibling in reversed(siblings):
        whole = sibling.tag in _LEAD_TAG_NAMES or _is_text_leaf(sibling)
        for candidate in [sibling] if whole else sibling.css(_LEAD_TAGS):
            if candidate.tag == "div" and not _is_text_leaf(candidate):
                continue
            if len(candidate.text(deep=True, strip=True)) < tuning.lead_min_chars:
                continue
            if _link_share(candidate) > tuning.lead_max_link_share:
                continue
            if in_furniture(candidate, page_chars, _LEAD_FURNITURE_NAME, memo, tuning):
                continue
            if candidate.css_matches(FURNITURE_SELECTOR):  # a caption or credit line
                continue
            found.append(candidate)
    return _outermost(found)


def _is_text_leaf(node: LexborNode) -> bool:
    """A `<div>` that holds only text and inline markup: a lead printed without `<p>`."""
    if node.tag != "div":
        return False
    child = node.child
    while child is not None:
        if child.tag in _BLOCK_TAGS:
            return False
        child = child.next
    return True


def in_furniture(
    node: LexborNode | None,
    page_chars: int,
    names: re.Pattern[str] = _FURNITURE_NAME,
    memo: dict[int, bool] | None = None,
    tuning: Tuning = TUNING,
) -> bool:
    """The node sits in (or is) a comment thread, a related-links box, a dialog or a footer.

    A wrapper named like furniture that holds nearly the whole page is the page's frame
    (Drupal's `dialog-off-canvas-main-canvas`), not furniture. Callers asking about many
    nodes of one page pass one `memo` (for one `page_chars` and `names`), so each
    ancestor is judged once however many nodes sit under it.
    """

    def own(current: LexborNode) -> bool | None:
        if current.tag in ("body", "html"):
            return False
        if current.tag in _FURNITURE_ANCESTOR_TAGS:
            return True
        if names.search(_names(current)):
            return not _is_page_frame(current, page_chars, tuning)
        return None

    return _first_decided(node, own, {} if memo is None else memo)


def _first_decided(
    node: LexborNode | None, own: Callable[[LexborNode], bool | None], memo: dict[int, bool]
) -> bool:
    """The verdict of the nearest of `node` and its ancestors that `own` decides (False
    when none does), memoised by node: the nodes walked take the verdict too, so a page
    of deeply nested nodes costs each ancestor once, not once per node below it."""
    walked: list[int] = []
    verdict = False
    while node is not None:
        known = memo.get(node.mem_id)
        if known is not None:
            verdict = known
            break
        walked.append(node.mem_id)
        decided = own(node)
        if decided is not None:
            verdict = decided
            break
        node = node.parent
    for mem_id in walked:
        memo[mem_id] = verdict
    return verdict


def _names(node: LexborNode) -> str:
    """The node's class and id tokens that name it. Atomic CSS utilities such as Yahoo's
    `modal-open_D(b)` ("display: block while a modal is open") style the node, they do
    not say what it is: tokens with a parenthesis are left out."""
    attrs = node.attributes
    tokens = f"{attrs.get('class') or ''} {attrs.get('id') or ''}".split()
    return " ".join(token for token in tokens if "(" not in token)


def _is_page_frame(node: LexborNode, page_chars: int, tuning: Tuning) -> bool:
    return len(node.text(deep=True, strip=True)) >= tuning.page_frame_share * page_chars


def _grow(
    containers: list[LexborNode], page_prose: int, body: LexborNode, tuning: Tuning
) -> list[LexborNode]:
    """Widen a lone container until it holds most of the page's paragraph text, not
    counting the prose of boxes beside it (author, profile, tagline, blogroll, widgets)."""
    if len(containers) != 1:
        return containers
    node = containers[0]
    if page_prose and paragraph_chars(node) < tuning.grow_share * page_prose:
        page_prose -= _box_prose(body, node)
    for _ in range(tuning.grow_steps):
        if page_prose <= 0 or paragraph_chars(node) >= tuning.grow_share * page_prose:
            break
        parent = node.parent
        if parent is None or parent.tag in ("body", "html"):
            break
        node = parent
    return [node]


def _box_prose(body: LexborNode, container: LexborNode) -> int:
    """Paragraph text in boxes (_BOX_NAME) that do not hold `container`."""
    return sum(paragraph_chars(box) for box in _boxes(body, container))


def _boxes(body: LexborNode, container: LexborNode | None) -> list[LexborNode]:
    """The outermost elements named like _BOX_NAME, less those holding `container`."""
    found = [
        node
        for node in body.css("[class], [id]")
        if _BOX_NAME.search(_names(node)) and (container is None or not _holds(node, container))
    ]
    return _outermost(found)


def _outermost(nodes: list[LexborNode]) -> list[LexborNode]:
    """Drop nodes inside another chosen node, and repeats; keep document order."""
    ids = {node.mem_id for node in nodes}
    chosen: dict[int, bool] = {}  # node -> it or an ancestor is chosen

    def own(node: LexborNode) -> bool | None:
        return True if node.mem_id in ids else None

    kept: list[LexborNode] = []
    seen: set[int] = set()
    for node in nodes:
        if node.mem_id in seen:
            continue
        seen.add(node.mem_id)
        if not _first_decided(node.parent, own, chosen):
            kept.append(node)
    return kept


def _densest(body: LexborNode, page_chars: int, tuning: Tuning) -> LexborNode:
    """readability's rule: the element that collects the most own text, links discounted.

    Each block's own text (its direct text nodes, by width) scores its parent fully and its
    grandparent by half; the best few candidates are then weighed by their link share.
    """
    scores: dict[int, list[Any]] = {}
    for block in body.css(_SCORED_BLOCKS):
        length = _width(block.text(deep=False, strip=True))
        if length < 25:
            continue
        score = 1 + min(length / 100, 3) + block.text(deep=False).count(",") * 0.1
        parent = block.parent
        for share in (1.0, 0.5):
            if parent is None:
                break
            held = scores.setdefault(parent.mem_id, [0.0, parent])
            held[0] += score * share
            parent = parent.parent
    if not scores:
        return body
    ranked = sorted(scores.values(), key=lambda item: item[0], reverse=True)
    top = [
        item
        for item in ranked[:10]
        if not in_furniture(item[1], page_chars, tuning=tuning)
        and not in_furniture(item[1], page_chars, _BOX_NAME, tuning=tuning)
    ][:5] or ranked[:5]
    best: LexborNode = max(top, key=lambda item: item[0] * (1 - _link_share(item[1])))[1]
    return best


def _link_share(node: LexborNode) -> float:
    total = len(node.text(deep=True, strip=True))
    if not total:
        return 1.0
    linked = sum(len(a.text(deep=True, strip=True)) for a in node.css("a"))
    return min(linked / total, 1.0)


def _walk(container: LexborNode) -> list[Walked]:
    """Every block under `container` with its text, in document order."""
    out: list[Walked] = []
    current = Block("para", [])
    link_depth = 0
    open_blocks = [container]  # the block elements the walk is inside, innermost last
    # Iterative pre-order walk with explicit exits, so depth costs no recursion.
    stack: list[tuple[LexborNode, bool]] = [(container, False)]
    while stack:
        node, leaving = stack.pop()
        tag = node.tag
        if leaving:
            if tag == "a":
                link_depth -= 1
            elif tag in _BLOCK_TAGS:
                current = _flush(current, open_blocks[-1], out)
                open_blocks.pop()
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
            current = _flush(current, open_blocks[-1], out)
            current.kind = _kind(tag)
            open_blocks.append(node)
        stack.append((node, True))
        children = []
        child = node.child
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend((c, False) for c in reversed(children))
    _flush(current, open_blocks[-1], out)
    return out


def _kind(tag: str) -> str:
    if tag in _HEADINGS:
        return "heading"
    if tag in _LINE_TAGS:
        return "item" if tag == "li" else "line"
    return "para"


def _flush(block: Block, element: LexborNode, out: list[Walked]) -> Block:
    """Record the block if it has text; start a new one."""
    if block.parts:
        text = block.text().strip(" |")
        if text:
            out.append(Walked(text, block.kind, block.link_chars, element))
    return Block("para", [])


def _keep(text: str, link_chars: int, tuning: Tuning) -> bool:
    length = len(text)
    linked = length < tuning.long_block and link_chars > tuning.max_link_share * length
    if linked and not _linked_sentence(text, link_chars, tuning):
        return False
    return not (length <= tuning.stamp_max and _STAMP.search(text))


def _linked_sentence(text: str, link_chars: int, tuning: Tuning) -> bool:
    """A sentence that cites its source through a link ("Police <a>said the tablets
    contained DNP</a>, a toxic chemical."): prose outside the links and a closing full
    stop, which a run of links or a link with a date beside it does not have."""
    return len(text) - link_chars >= tuning.linked_sentence_prose and text[-1:] in _SENTENCE_ENDS


def kept_blocks(blocks: list[tuple[str, str]], tuning: Tuning = TUNING) -> list[tuple[str, str]]:
    """Step 4: the judged blocks that make the text."""
    return [blocks[index] for index in kept_indices(blocks, tuning)]


def kept_indices(blocks: list[tuple[str, str]], tuning: Tuning = TUNING) -> list[int]:
    """Drop link blocks, and short blocks whose context is not content (as jusText)."""
    short = [_is_short(text, kind, tuning) for text, kind in blocks]
    before, after = _neighbour_kinds(blocks, short)
    indices = [
        index
        for index, (text, kind) in enumerate(blocks)
        if kind != _DROPPED
        and not (kind == "heading" and _introduces_links(blocks, index + 1, text, tuning))
        and not (short[index] and not _in_content(kind, before[index], after[index]))
    ]
    # Both trims cut at the ends only: the tail a suffix, the head at most the first.
    tail = _trim_tail([blocks[index] for index in indices], tuning)
    head = _trim_head(tail, tuning)
    return indices[len(tail) - len(head) : len(tail)]


def _is_short(text: str, kind: str, tuning: Tuning) -> bool:
    return kind in ("heading", "para") and _width(text) < tuning.short


def _in_content(kind: str, before: str | None, after: str | None) -> bool:
    """A short heading needs content after it; a short paragraph content on both sides.

    `before` and `after` are the kinds of the nearest blocks that are not short
    themselves (None: none); the start of the container counts as content, its end
    does not.
    """
    if kind == "heading":
        return after not in (None, _DROPPED)
    return after not in (None, _DROPPED) and before != _DROPPED


def _neighbour_kinds(
    blocks: list[tuple[str, str]], short: list[bool]
) -> tuple[list[str | None], list[str | None]]:
    """For each block, the kind of the nearest block before it and after it that is not
    short (None: none), in one pass each way: a page of many short blocks costs linear
    time, not a rescan per block."""
    before: list[str | None] = []
    nearest: str | None = None
    for (_, kind), is_short in zip(blocks, short, strict=True):
        before.append(nearest)
        if not is_short:
            nearest = kind
    after: list[str | None] = []
    nearest = None
    for (_, kind), is_short in zip(reversed(blocks), reversed(short), strict=True):
        after.append(nearest)
        if not is_short:
            nearest = kind
    after.reverse()
    return before, after


def _trim_tail(blocks: list[tuple[str, str]], tuning: Tuning) -> list[tuple[str, str]]:
    """Drop short blocks after the last substantial paragraph: they label what follows the
    text (related links, share bars, tags), as jusText classifies short blocks by context."""
    end = len(blocks)
    while (
        end
        and _width(blocks[end - 1][0]) < tuning.short_tail
        and blocks[end - 1][1] in ("heading", "para")
    ):
        end -= 1
    return blocks[:end] if any(_width(t) >= tuning.good_block for t, _ in blocks[:end]) else blocks


def _trim_head(blocks: list[tuple[str, str]], tuning: Tuning) -> list[tuple[str, str]]:
    """Drop a short first paragraph above prose: the kicker, breadcrumb, byline or date
    line printed above the text, which the context rule keeps because the container's
    start counts as content. Headings stay (a short first heading is the article's own),
    and so does a text of short paragraphs only, where the first is as much text as any,
    and a first sentence of five or more words without digits ending in a full stop:
    labels are not written as sentences, and datelines carry digits."""
    if not blocks or blocks[0][1] != "para" or _width(blocks[0][0]) >= tuning.short_head:
        return blocks
    if _SENTENCE.match(blocks[0][0]):
        return blocks
    if any(_width(text) >= tuning.good_block for text, _ in blocks[1:]):
        return blocks[1:]
    return blocks


def _width(text: str) -> int:
    """Length for the short-block rules, a CJK character counted twice: it carries about
    as much as a short Latin word, so a 40-character CJK paragraph is prose, not a label."""
    return len(text) + len(_WIDE.findall(text))


def _introduces_links(
    blocks: list[tuple[str, str]], start: int, heading: str, tuning: Tuning
) -> bool:
    """A heading over a link list labels it; a heading of prose length is a standfirst."""
    if len(heading) >= tuning.good_block:
        return False
    for _, kind in blocks[start : start + 3]:
        if kind != "heading":
            return kind == _DROPPED
    return start >= len(blocks)


def joined(blocks: list[tuple[str, str]]) -> str:
    """The text of kept blocks: paragraphs and headings apart by a blank line, items and
    rows one per line, one spelling per character (NFC, as readers and search queries
    write it)."""
    pieces: list[str] = []
    previous = ""
    for text, kind in blocks:
        line = f"- {text}" if kind == "item" else text
        grouped = kind in ("item", "line") and previous == kind
        if pieces:
            pieces.append("\n" if grouped else "\n\n")
        pieces.append(line)
        previous = kind
    return unicodedata.normalize("NFC", "".join(pieces))
