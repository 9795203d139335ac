"""Text helpers the judgements share: white space, lines, phrase look-ups, visible text.

Bounded patterns only: a hostile page of unclosed tags must cost one pass, not one per tag.
"""

from __future__ import annotations

import functools
import html
import re

from sosoapi.extract.text_plain import normalize_plain_text
from sosoapi.extract.walls.signals.error_pages import (
    ERROR_AFFIXES,
    NOT_FOUND_PHRASES,
    TITLE_PARTS,
    WORD_TOKENS,
)

_TAG = re.compile(r"<[^<>]*>")
# ASCII case only, as the HTML tokenizer reads tag names (`re.I` alone would take the long
# s or the Kelvin sign for a letter of the name).
_INVISIBLE_OPEN = re.compile(r"<(script|style|template)\b[^<>]{0,2000}>", re.I | re.A)


def collapse(text: str) -> str:
    """White space runs as one space, ends trimmed (str.split's white space is `\\s`'s)."""
    return " ".join(text.split())


def lines_of(text: str) -> list[str]:
    return [line for raw in text.split("\n") if (line := collapse(raw))]


def without(text: str, words: str) -> str:
    """`text` without the lines found in `words` (a banner's or chrome's collapsed text)."""
    if not words:
        return text
    padded = f" {words} "
    kept = [raw for raw in text.split("\n") if f" {collapse(raw)} " not in padded]
    return normalize_plain_text("\n".join(kept))


def says_any(lowered: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in lowered for phrase in phrases)


def _phrase(text: str) -> str:
    """`text` as the soft-404 tables hold it: lower case, words only, error affixes gone."""
    tokens = [t.replace("’", "'") for t in WORD_TOKENS.findall(text.casefold())]
    while tokens and tokens[0] in ERROR_AFFIXES:
        tokens.pop(0)
    while tokens and tokens[-1] in ERROR_AFFIXES:
        tokens.pop()
    return " ".join(tokens).replace("_", " ")


def says_only(candidates: list[str], phrases: frozenset[str]) -> bool:
    """True when a candidate (or one part of a title) is only one of `phrases`; for the
    not-found table, a part that is only "404" (or "Error 404") counts too."""
    for candidate in candidates:
        for part in (candidate, *TITLE_PARTS.split(candidate)):
            core = _phrase(part)
            if core in phrases or (not core and "404" in part and phrases is NOT_FOUND_PHRASES):
                return True
    return False


def element_text(markup: str, element: re.Pattern[str]) -> str:
    """The text of the first such element, read from the markup (no tree needed)."""
    match = element.search(markup)
    return collapse(html.unescape(_TAG.sub(" ", match.group(1)))) if match else ""


@functools.cache
def _closing_tag(closing: str) -> re.Pattern[str]:
    """`closing` (lower case) in any ASCII case: a few spellings of three tags."""
    return re.compile(re.escape(closing), re.IGNORECASE | re.ASCII)


def visible_text(markup: str) -> str:
    """The markup without scripts, styles and tags: roughly what a reader sees."""
    shown: list[str] = []
    at = 0
    # The closing tag is found in the markup itself, in any ASCII case: finding it in
    # `markup.lower()` cost as much as the rest on a non-ASCII page, and gave an offset
    # into the lowered text, which is longer than the markup wherever U+0130 is.
    for opener in _INVISIBLE_OPEN.finditer(markup):
        if opener.start() < at:
            continue
        shown.append(markup[at : opener.start()])
        found = _closing_tag(f"</{opener.group(1).lower()}").search(markup, opener.end())
        if found is None:
            at = len(markup)
            break
        at = found.start()
    shown.append(markup[at:])
    return collapse(html.unescape(_TAG.sub(" ", " ".join(shown))))
