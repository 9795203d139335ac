"""A read of a specific item redirected to its site's home page -> `not_found`."""

from __future__ import annotations

from urllib.parse import urlsplit

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.walls.signals.error_pages import HOME_PATH, SITE_PREFIXES
from sosoapi.extract.walls.types import Verdict
from sosoapi.extract.walls.view import PageView


def sent_home(view: PageView, text: str) -> Verdict | None:
    """A read of a specific item redirected to its site's home page: the item is gone
    (`not_found`), whatever the home page says. Judged from the redirect chain's two ends
    (the URL asked for and where egress landed), not from the landing page's text."""
    asked, landed = view.page.asked, view.page.redirected_to
    if asked is None or landed is None:
        return None
    before, after = urlsplit(asked), urlsplit(landed)
    if _site(before.hostname) != _site(after.hostname) or _site(after.hostname) is None:
        return None
    if HOME_PATH.match(before.path) or not HOME_PATH.match(after.path):
        return None
    return Verdict("", (Reason.NOT_FOUND,), "redirected_home")


def _site(host: str | None) -> str | None:
    """The host without the prefixes one site serves under (`www.`, `m.`, `amp.`)."""
    if not host:
        return None
    for prefix in SITE_PREFIXES:
        host = host.removeprefix(prefix)
    return host
