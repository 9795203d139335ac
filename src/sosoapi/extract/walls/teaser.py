"""A subscriber article cut at its teaser -> its text kept, `source_partial` (the origin
sent part of the source)."""

from __future__ import annotations

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.walls.signals.paywalls import NOT_FREE, PAYWALL_PHRASES
from sosoapi.extract.walls.text import collapse, visible_text
from sosoapi.extract.walls.types import Verdict
from sosoapi.extract.walls.view import PageView

TEASER_TEXT_MAX = 2_500
# Without `isAccessibleForFree` markup, the prompt must follow where the text stops: this
# many characters of the visible page after the text's last words.
_PROMPT_SPAN = 300
_TAIL = 60  # characters of the text's end looked up in the visible page


def paywall_teaser(view: PageView, text: str) -> Verdict | None:
    """A subscriber article cut at its teaser: the text is kept, `source_partial`. With
    `isAccessibleForFree: false` a paywall prompt anywhere in the visible page will do;
    without it, the page must say so where the text stops (the prompt within
    `_PROMPT_SPAN` characters after the text's last words)."""
    if not text or len(text) >= TEASER_TEXT_MAX:
        return None
    shown = visible_text(view.markup)
    if "isAccessibleForFree" in view.markup and NOT_FREE.search(view.markup):
        said = PAYWALL_PHRASES.search(shown) is not None
    else:
        said = _prompt_after(shown, text)
    return Verdict(text, (Reason.SOURCE_PARTIAL,), "teaser") if said else None


def _prompt_after(shown: str, text: str) -> bool:
    """A paywall prompt follows the text's last words in the visible page."""
    tail = collapse(text)[-_TAIL:]
    at = shown.rfind(tail)
    if len(tail) < 20 or at < 0:
        return False
    start = at + len(tail)
    return PAYWALL_PHRASES.search(shown, start, start + _PROMPT_SPAN) is not None
