"""What the page is not: challenge pages, consent walls, soft 404s, chrome and script shells.

An agent cites what we keep as the source's words, so a page that is not the source's
content must not be kept as if it were. `judge` runs once per decoded HTML page, around
main-text extraction, and says what the page is:

- a bot-defence challenge or block page (any status) -> `access_denied`, nothing kept; a
  page titled as a wait-while-we-check interstitial with a script and almost no text of
  its own too, whoever serves it;
- a consent or subscription wall with no article, which asks with a control ("Accept
  all" as a button or link) -> `login_required`, nothing kept; Google's and Yahoo's
  consent interstitials (a form posting to their consent host) in any language too; a
  consent banner over a real article is cut out of the article's text instead;
- a sign-in page served with 200 (a password input and little else to read, or a
  redirect that landed on a sign-in path) -> `login_required`, nothing kept; an article
  with a sign-in box in its header keeps its status;
- a soft 404 served 200 -> `not_found` (an error page of a web framework -> `unavailable`,
  a "403 Forbidden" page -> `access_denied`); a specific item redirected to its site's
  home page -> `not_found`;
- a subscriber article whose structured data says `isAccessibleForFree: false` and whose
  text stops at a teaser -> `source_partial` (the origin sent part of the source);
- a script shell: its text read from its own embedded data (JSON-LD `articleBody`,
  `__NEXT_DATA__`, Nuxt state) when present, never by running a script; else no text
  (the reader says `metadata_only` when the page has a title or description, else
  `no_text`, as for chrome);
- a page whose only text is navigation or chrome -> no text (the reader says `no_text` or
  `metadata_only`).

Every judgement but one needs the page to be nothing else: a vendor's markup or a phrase
only counts when the page holds little other text (the exception: a response header a
vendor documents as sent on challenge answers only, such as `cf-mitigated: challenge`),
so an article about Cloudflare, a story quoting a consent dialog or titled "Not found:
..." stays `ready` with its own text. The signals are tables in `signals/` (one module per
family of vendors), each entry naming where it is documented or observed; each judgement
is a module of its own (`challenge`, `consent`, `sign_in`, `soft_404`, `redirected_home`,
`teaser`, `shell` with `embedded`, `chrome`); the corpus in tests/data/walls (README there) holds a
page for each, bench/extraction.py `--walls` counts false walls on the dev sets, and
bench/walls_wild.py gives the verdict per class on pages captured in the wild.
"""

from __future__ import annotations

from collections.abc import Callable

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.types import WALL_REASONS
from sosoapi.extract.walls.challenge import challenge_vendor, decisive_vendor
from sosoapi.extract.walls.chrome import chrome_only
from sosoapi.extract.walls.consent import consent_wall
from sosoapi.extract.walls.redirected_home import sent_home
from sosoapi.extract.walls.shell import script_shell
from sosoapi.extract.walls.sign_in import SIGN_IN_MAX_TEXT, sign_in_page
from sosoapi.extract.walls.signals.bot_defences import VENDORS, Vendor
from sosoapi.extract.walls.soft_404 import missing_page
from sosoapi.extract.walls.teaser import paywall_teaser
from sosoapi.extract.walls.types import Page, Verdict
from sosoapi.extract.walls.view import PageView

__all__ = ["SIGN_IN_MAX_TEXT", "VENDORS", "WALL_REASONS", "Page", "Vendor", "Verdict", "judge"]


def judge(page: Page, main_text: Callable[[], str]) -> Verdict:
    """What `page` is, given the extractor's main text (called once, only when needed).

    Non-2xx pages (the error pages egress keeps for 403, 405, 429 and 503) are judged
    for a challenge only; everything else keeps the status's own reason.
    """
    view = PageView(page)
    vendor = decisive_vendor(page.headers)
    if vendor:
        return Verdict("", (Reason.ACCESS_DENIED,), f"challenge:{vendor}")
    text = main_text()
    vendor = challenge_vendor(view, text)
    if vendor:
        return Verdict("", (Reason.ACCESS_DENIED,), f"challenge:{vendor}")
    if page.status is not None and not 200 <= page.status < 300:
        return Verdict(text)
    verdict = _first_verdict(view, text)
    if WALL_REASONS.isdisjoint(verdict.conditions) and sign_in_page(view, verdict.text):
        return Verdict("", (Reason.LOGIN_REQUIRED,), "sign_in")
    return verdict


def _first_verdict(view: PageView, text: str) -> Verdict:
    """The first step's verdict on a 2xx page, or the extractor's text as the page."""
    for step in (sent_home, consent_wall, missing_page, script_shell, paywall_teaser, chrome_only):
        verdict = step(view, text)
        if verdict is not None:
            return verdict
    return Verdict(text)
