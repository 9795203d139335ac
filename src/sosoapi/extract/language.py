"""Publisher-declared language tags, normalised to the contract's BCP 47 shape."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

_TAG = re.compile(r"^[a-zA-Z]{2,8}(?:-[a-zA-Z0-9]{1,8})*$")
MAX_TAG = 35


def normalize_language(raw: str | None) -> str | None:
    """`en_US` -> `en-US`; first entry of a list; None when absent or not a valid tag."""
    if raw is None:
        return None
    first = re.split(r"[,;\s]+", raw.strip(), maxsplit=1)[0] if raw.strip() else ""
    tag = first.replace("_", "-")
    if not tag or len(tag) > MAX_TAG or not _TAG.fullmatch(tag):
        return None
    return tag


MatchedBy = Literal["exact", "prefix", "macrolanguage"]
MATCH_RULES: tuple[MatchedBy, ...] = ("exact", "prefix", "macrolanguage")  # best first


@dataclass(frozen=True, slots=True)
class LanguageMatch:
    """How an asked language matched a declared tag: which tag, and by which rule."""

    asked: str
    matched: str
    by: MatchedBy


def match_language(asked: str, declared: str) -> LanguageMatch | None:
    """BCP 47 matching, first rule that holds: the same tag (case-insensitive); a prefix on
    subtag boundaries (`en` ~ `en-US`); then the IANA registry's macrolanguages, where the
    macrolanguage covers its members (`no` ~ `nb-NO`, `zh` ~ `cmn-Hans`, `ar` ~ `arb`) but
    two members never match each other (`nb` is not `nn`). Two tags that both carry a
    region never match across regions (`en-GB` vs `en-US`)."""
    a, d = asked.lower(), declared.lower()
    if a == d:
        return LanguageMatch(asked, declared, "exact")
    if _prefix_match(a, d):
        return LanguageMatch(asked, declared, "prefix")
    if _macro_match(a, d) or _macro_match(d, a):
        return LanguageMatch(asked, declared, "macrolanguage")
    return None


def language_matches(asked: str, declared: str) -> bool:
    return match_language(asked, declared) is not None


def _prefix_match(a: str, d: str) -> bool:
    return a == d or d.startswith(a + "-") or a.startswith(d + "-")


@cache
def _macrolanguages() -> dict[str, str]:
    """langcodes' table of member language -> macrolanguage, loaded at the first match that
    needs it (its module builds every langcodes table, too slow for each process start)."""
    from langcodes.data_dicts import MACROLANGUAGES

    return dict(MACROLANGUAGES)


def _macro_match(macro_side: str, member_side: str) -> bool:
    """`member_side`'s primary subtag belongs to `macro_side`'s: compare them with the
    member's primary subtag replaced by its macrolanguage."""
    primary, _, rest = member_side.partition("-")
    macro = _macrolanguages().get(primary)
    if macro is None or macro != macro_side.partition("-")[0]:
        return False
    return _prefix_match(macro_side, f"{macro}-{rest}" if rest else macro)
