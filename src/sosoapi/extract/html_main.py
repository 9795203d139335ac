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
Step 1 is `html_container.py`, steps 3-4 `html_blocks.py`, the thresholds `html_tuning.py`;
this module runs them in order.
"""

from __future__ import annotations

from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sosoapi.extract.html_blocks import DROPPED, Walked, joined, kept_blocks, walk, width
from sosoapi.extract.html_boilerplate import NON_TEXT_TAGS, paragraph_chars, prune_furniture
from sosoapi.extract.html_container import boxes, choose_containers, leading_prose
from sosoapi.extract.html_tuning import TUNING, Tuning


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
        if width(self.text) < self.tuning.sure_min_width:
            return False
        if self.container_share < self.tuning.sure_container_share:
            return False
        return (
            len(self.text) >= self.tuning.sure_length
            or self.text_share >= self.tuning.sure_text_share
        )


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
    containers = choose_containers(body, page_chars, page_prose, tuning)
    inside = sum(paragraph_chars(node) for node in containers)
    leads = leading_prose(containers[0], page_chars, tuning) if containers else []
    groups = [("lead", lead, walk(lead)) for lead in leads]
    for container in containers:
        prune_furniture(container)
        groups.append(("container", container, walk(container)))
    page = PageBlocks(groups, page_chars, inside / page_prose if page_prose else 1.0, tuning)
    if (
        sum(len(text) for text, kind in page.judged() if kind != DROPPED)
        < tuning.container_min_chars
    ):
        prune_furniture(body)
        for box in boxes(body, None):
            if len(box.text(deep=True, strip=True)) < tuning.box_max_share * page_chars:
                box.decompose()
        page = PageBlocks([("body", body, walk(body))], page_chars, page.container_share, tuning)
    return page
