"""Consent and subscription walls with no article -> `login_required`, nothing kept.

A wall asks with a control ("Accept all" as a button or link) and leaves little text of
its own; Google's and Yahoo's consent interstitials (a form posting to their consent
host) count in any language. A consent banner over a real article is cut out of the
article's text instead (kind "banner").
"""

from __future__ import annotations

from urllib.parse import urlsplit

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.walls.shell import SHELL_TEXT_MAX
from sosoapi.extract.walls.signals.consent_platforms import (
    ACCEPT_PHRASES,
    CONSENT_FORM,
    CONSENT_LANDING,
    CONSENT_PHRASES,
    CONTROL_SELECTOR,
    SUBSCRIBE_PHRASES,
)
from sosoapi.extract.walls.text import collapse, lines_of, says_any, without
from sosoapi.extract.walls.types import Verdict
from sosoapi.extract.walls.view import PageView

WALL_REST_MAX = 300  # characters of text left beside the wall's own words
CONSENT_PAGE_MAX = 5_000  # characters: Google's consent page says about 2,500 at most
CONSENT_TEXT_MAX = 2_000  # below this the page's banners are read even if the text has none
_CONTROL_LABEL_MAX = 80


def consent_wall(view: PageView, text: str) -> Verdict | None:
    """A consent or subscription wall (nothing kept), or an article with its banner cut out."""
    if _consent_service(view, text):
        return Verdict("", (Reason.LOGIN_REQUIRED,), "consent")
    tiny = len(text) < SHELL_TEXT_MAX  # the extractor may have dropped the wall as furniture
    lowered = text.lower()
    asked = tiny or says_any(lowered, ACCEPT_PHRASES)
    if not asked and (len(text) >= CONSENT_TEXT_MAX or not says_any(lowered, CONSENT_PHRASES)):
        return None
    banner = view.banner
    words = f" {banner} {text} ".lower()
    if not (
        says_any(words, ACCEPT_PHRASES) and says_any(words, CONSENT_PHRASES + SUBSCRIBE_PHRASES)
    ):
        return None
    article = without(text, banner)
    rest = [
        line
        for line in lines_of(article)
        if not says_any(f" {line.lower()} ", ACCEPT_PHRASES + CONSENT_PHRASES + SUBSCRIBE_PHRASES)
    ]
    if sum(len(line) for line in rest) < WALL_REST_MAX and _offers_to_accept(view):
        return Verdict("", (Reason.LOGIN_REQUIRED,), "consent")
    if article != text:
        return Verdict(article, (), "banner")
    return None


def _consent_service(view: PageView, text: str) -> bool:
    """Google's or Yahoo's consent interstitial: landed on their consent host, or a short
    page whose choices post there."""
    landed = view.page.redirected_to
    if landed is not None and CONSENT_LANDING.match(urlsplit(landed).hostname or ""):
        return True
    return (
        len(text) < CONSENT_PAGE_MAX
        and view.has(("consent.", "guce."))
        and CONSENT_FORM.search(view.markup) is not None
    )


def _offers_to_accept(view: PageView) -> bool:
    """A button, link or submit input says "Accept all" (or the like): a wall asks with
    a control; a story quoting a consent dialog quotes it in its paragraphs."""
    for node in view.tree.css(CONTROL_SELECTOR):
        label = collapse(node.text(deep=True) or node.attributes.get("value") or "")
        if len(label) <= _CONTROL_LABEL_MAX and says_any(f" {label.lower()} ", ACCEPT_PHRASES):
            return True
    return False
