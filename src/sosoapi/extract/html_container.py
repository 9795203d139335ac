"""Step 1 of the main-content extractor (extract/html_main.py): choose the containers
of the page's text (the well-known article selectors, then the main area narrowed to its
densest block, else the element with the most paragraph text), the lead before them,
and the boxes beside them; `in_furniture` says whether an element sits in furniture."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from selectolax.lexbor import LexborNode

from sosoapi.extract.html_blocks import BLOCK_TAGS, width
from sosoapi.extract.html_boilerplate import (
    FURNITURE_NAME_STARTS,
    FURNITURE_SELECTOR,
    LANDMARK_TAGS,
    named_selector,
    paragraph_chars,
    token_start_pattern,
)
from sosoapi.extract.html_tuning import TUNING, Tuning

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


_LEAD_TAGS = "p, h2, div"


_LEAD_TAG_NAMES = frozenset({"p", "h2"})


def choose_containers(
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


def leading_prose(container: LexborNode, page_chars: int, tuning: Tuning) -> list[LexborNode]:
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
        if child.tag in BLOCK_TAGS:
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
    return sum(paragraph_chars(box) for box in boxes(body, container))


def boxes(body: LexborNode, container: LexborNode | None) -> list[LexborNode]:
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
        length = width(block.text(deep=False, strip=True))
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
