"""Which parts of a page are boilerplate: markup that is never text, and page furniture.

The hints are the well-known ones shared by readability, trafilatura and jusText: tags and
ARIA roles for navigation, asides and footers, and class/id tokens for comments, cookie
banners, share bars, related links, ads and newsletter boxes. Selectors run inside Lexbor
(C), so pruning costs one pass per selector group, not Python per node.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from selectolax.lexbor import LexborNode

from sosoapi.extract.html_tree_names import ascii_lower

# Never text: their content is code, controls or media; `rt`/`rp` are ruby readings
# printed over the characters they annotate, not part of the sentence.
NON_TEXT_TAGS = [
    "script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object",
    "embed", "button", "select", "input", "textarea", "audio", "video", "map", "dialog",
    "head", "link", "meta", "figcaption", "rt", "rp",
]  # fmt: skip

# What counts as furniture has its one home here: the tags, roles and names below, read
# by `prune_furniture`, by html_main's `in_furniture` (whether an element sits in
# furniture) and by walls' chrome and consent-banner look-ups.
#
# HTML's landmark elements for navigation, complementary content and page footers: the
# furniture in any page, whatever their names; with `<menu>` they are pruned outright.
LANDMARK_TAGS = ("nav", "aside", "footer")
FURNITURE_TAGS = (*LANDMARK_TAGS, "menu")
_FURNITURE_ROLES = (
    "[role=navigation i], [role=complementary i], [role=contentinfo i], [role=banner i], "
    "[role=search i], [role=dialog i], [role=alertdialog i], [role=menu i], [role=menubar i]"
)
_HIDDEN = "[hidden], [aria-hidden=true i], [style*='display:none' i], [style*='display: none' i]"
# Substrings of class or id that name a consent or cookie banner (matched
# case-insensitively; walls' banner selector adds the consent platforms' own ids).
CONSENT_NAME_WORDS = ("cookie", "consent", "gdpr")
# Substrings of class or id that name furniture (matched case-insensitively).
_FURNITURE_WORDS = (
    "comment", *CONSENT_NAME_WORDS, "sidebar", "breadcrumb", "share", "sharing",
    "social", "related", "newsletter", "subscribe", "signup", "sign-up", "popup", "modal",
    "banner", "advert", "sponsor", "promo", "footer", "navbar", "navigation", "menu",
    "pagination", "pager", "disqus", "outbrain", "taboola", "recommend", "widget",
    "masthead", "skip-link", "skiplink", "toolbar", "byline", "author", "tags",
    "post-meta", "entry-meta", "article-meta", "metadata", "disclosure", "print-only",
    "visually-hidden", "sr-only", "caption", "credit", "copyright", "next-post", "nextpost",
    "next-story", "nextstory", "next-article", "prev-post", "captcha",
)  # fmt: skip
# Whole class/id tokens too short to match as substrings.
_FURNITURE_TOKENS = ("ad", "ads", "nav", "meta", "share", "tools", "date", "dateline", "topbar")
# Words too short for substrings that name furniture as a part of a dashed or underscored
# token too ("it-ad", "ad-slot", "mol_ad"), unlike "head" or "download".
_FURNITURE_PARTS = ("ad",)

# Words a class or id token starts with ("comment-list", "related_posts", "login-modal",
# unlike "has-sidebar" or "commentary") when html_main asks whether an element sits in
# furniture: a comment thread, related links, a dialog, a teaser box or a footer.
FURNITURE_NAME_STARTS = (
    "comments?", "commentlist", "related", "login", "modal", "dialog", "sidebar", "teasers?",
    "popup", "newsletter", r"recommend\w*", "footer",
)  # fmt: skip


def named_selector(words: Iterable[str]) -> str:
    """Elements whose class or id holds one of `words` (any case)."""
    return ", ".join(f"[class*='{word}' i], [id*='{word}' i]" for word in words)


def token_start_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """A class or id token (of a space-joined `class id` string) that starts with one of
    the `words` (regex alternatives), then ends or goes on after `-` or `_`."""
    return re.compile(rf"(?:^|\s)(?:{'|'.join(words)})(?:$|\s|[-_])", re.IGNORECASE)


def _word_selector() -> str:
    parts = [named_selector(_FURNITURE_WORDS)]
    for token in _FURNITURE_TOKENS:
        parts.append(f"[class~='{token}' i]")
        parts.append(f"[id='{token}' i]")
    for word in _FURNITURE_PARTS:
        for attr, sep in itertools.product(("class", "id"), "-_"):
            parts.extend(
                f"[{attr}{op}'{value}' i]"
                for op, value in (
                    ("^=", f"{word}{sep}"),
                    ("*=", f" {word}{sep}"),
                    ("*=", f"{sep}{word}{sep}"),
                    ("*=", f"{sep}{word} "),
                    ("$=", f"{sep}{word}"),
                )
            )
    return ", ".join(parts)


_TAG_SELECTOR = ", ".join(FURNITURE_TAGS)
_MARKED_SELECTOR = ", ".join((_TAG_SELECTOR, _FURNITURE_ROLES, _HIDDEN))
FURNITURE_SELECTOR = ", ".join((_MARKED_SELECTOR, _word_selector()))


def _names_pattern(whole: str) -> re.Pattern[str]:
    """`_word_selector`'s test of one class or id value (ASCII letters lowered), as one
    regex: Lexbor evaluates its ~150 attribute selectors on every element (most of
    pruning's cost), a regex runs once per distinct value. `whole` is how
    `_FURNITURE_TOKENS` match: a token of a class between CSS white space, the whole id."""
    words = "|".join(re.escape(word.lower()) for word in _FURNITURE_WORDS)
    parts = "|".join(
        rf"\A{word}{sep}| {word}{sep}|{sep}{word}{sep}|{sep}{word} |{sep}{word}\Z"
        for word, sep in itertools.product(map(re.escape, _FURNITURE_PARTS), "-_")
    )
    tokens = whole.format("|".join(re.escape(token.lower()) for token in _FURNITURE_TOKENS))
    return re.compile(f"{words}|{parts}|{tokens}")


_CLASS_NAMES = _names_pattern(r"(?:\A|[\t\n\f\r ])(?:{})(?:[\t\n\f\r ]|\Z)")
_ID_NAMES = _names_pattern(r"\A(?:{})\Z")
# A class/id match that holds this share of the container's text is content, not furniture
# (for example `<div id="content-with-comments">`). Both shares were chosen on the even
# half of extraction-dev (were 0.5 and 0.1).
_MAX_FURNITURE_SHARE = 0.6
# Only a match holding this share of the text is worth counting its paragraphs.
_CHECK_SHARE = 0.2
_PARAGRAPH_MIN = 80
_PROTECTED_TAGS = frozenset({"html", "body", "main", "article"})
# Inline markup inside a paragraph is part of its sentence even when named like furniture
# (`<p><span class="dateline">KOBE –</span> A total of ...`).
_INLINE_TAGS = frozenset({"span", "b", "strong", "em", "i", "small"})


def prune_furniture(container: LexborNode) -> None:
    """Remove navigation, asides, footers, comments, banners and hidden parts in place."""
    total = len(container.text(deep=True))
    paragraphs = paragraph_chars(container)
    unlinked = unlinked_chars(container)
    # Reverse document order removes descendants before their ancestors, so no node is
    # touched after an ancestor's removal freed it.
    for node in reversed(furniture_nodes(container)):
        if node.mem_id == container.mem_id:
            continue
        if node.tag in _PROTECTED_TAGS or _inside_sentence(node):
            continue
        if node.tag not in FURNITURE_TAGS and total:
            share = len(node.text(deep=True)) / total
            if share > _MAX_FURNITURE_SHARE:
                continue
            if share > _CHECK_SHARE and _holds_the_prose(node, paragraphs, unlinked):
                continue
        node.decompose()


def furniture_nodes(container: LexborNode) -> list[LexborNode]:
    """`container.css(FURNITURE_SELECTOR)` in document order, each node once (Lexbor lists a
    node once per selector it matches): Lexbor answers the tags, roles and hidden marks,
    `_CLASS_NAMES` and `_ID_NAMES` the class and id words."""
    marked = {node.mem_id for node in container.css(_MARKED_SELECTOR)}
    named: dict[tuple[str, str], bool] = {}  # a page repeats its class and id values
    found: list[LexborNode] = []
    last = None
    for node in container.css(f"{_MARKED_SELECTOR}, [class], [id]"):
        if node.mem_id == last:
            continue
        last = node.mem_id
        if node.mem_id in marked or _named_furniture(node.attributes, named):
            found.append(node)
    return found


def _named_furniture(attrs: dict[str, str | None], named: dict[tuple[str, str], bool]) -> bool:
    key = (attrs.get("class") or "", attrs.get("id") or "")
    known = named.get(key)
    if known is None:
        class_, id_ = map(ascii_lower, key)
        known = named[key] = bool(_CLASS_NAMES.search(class_) or _ID_NAMES.search(id_))
    return known


def _inside_sentence(node: LexborNode) -> bool:
    """An inline node in a `<p>` that holds more text than the node itself."""
    parent = node.parent
    if node.tag not in _INLINE_TAGS or parent is None or parent.tag != "p":
        return False
    return len(parent.text(deep=True, strip=True)) > len(node.text(deep=True, strip=True))


def paragraph_chars(node: LexborNode) -> int:
    """Characters in the node's `<p>` elements long enough to be prose."""
    lengths = (len(p.text(deep=True, strip=True)) for p in node.css("p"))
    return sum(length for length in lengths if length >= _PARAGRAPH_MIN)


def unlinked_chars(node: LexborNode) -> int:
    """Characters of text outside links: prose, where menus and link boxes have little."""
    linked = sum(len(a.text(deep=True)) for a in node.css("a"))
    return max(len(node.text(deep=True)) - linked, 0)


def _holds_the_prose(node: LexborNode, paragraphs: int, unlinked: int) -> bool:
    """Most of the container's paragraphs or unlinked text is inside `node`."""
    if paragraphs and paragraph_chars(node) > _MAX_FURNITURE_SHARE * paragraphs:
        return True
    return bool(unlinked) and unlinked_chars(node) > _MAX_FURNITURE_SHARE * unlinked
