"""The thresholds of the main-content extractor's rules (extract/html_main.py), in one
frozen value a benchmark can vary without reaching into the rules."""

from __future__ import annotations

from dataclasses import dataclass


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
