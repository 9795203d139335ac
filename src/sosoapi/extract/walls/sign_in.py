"""Sign-in pages served with 200 -> `login_required`, nothing kept.

A password input and little else to read, or a redirect that landed on a sign-in path,
or a page named for signing in; an article with a sign-in box in its header keeps its
status.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from sosoapi.extract.html_container import in_furniture
from sosoapi.extract.walls.signals.sign_in import PASSWORD_INPUT, SIGN_IN_PATH, SIGN_IN_PHRASES
from sosoapi.extract.walls.text import says_only
from sosoapi.extract.walls.view import PageView

SIGN_IN_PAGE_MAX = 1_500  # characters of main text a page named for signing in may hold
_PASSWORD_SCAN = 500_000  # characters of markup searched for a password input
SIGN_IN_MAX_TEXT = 600  # characters of main text below which a password form is the page
# A sign-in page's own words are labels and links ("Forgot your password?"); a paragraph
# of this many words is an article's, however short the article.
_ARTICLE_PARAGRAPH_WORDS = 20


def sign_in_page(view: PageView, text: str) -> bool:
    """The page is a sign-in form: it asks for a password, and a redirect landed on a
    sign-in path; or the page is named for signing in (its URL or title, with under
    1,500 characters of text: 11 of 13 real sign-in pages of the wild set were `ready`
    without this); or it asks outside the page's furniture (a sidebar login widget, a
    modal, the mobile menu: `html_container.in_furniture`) and has little else to read, none
    of it an article's paragraph. Five real articles of extraction-dev with such a
    widget and a short text were taken for sign-in pages by the rule without the last
    two conditions (bench/README.md, "Sign-in pages")."""
    if view.page.redirected_to is None and len(text) >= max(SIGN_IN_PAGE_MAX, SIGN_IN_MAX_TEXT):
        return False  # too long for the rules without a redirect: the markup is not searched
    if not view.has(("password",)) or not PASSWORD_INPUT.search(view.markup[:_PASSWORD_SCAN]):
        return False
    landed = view.page.redirected_to
    if landed is not None and SIGN_IN_PATH.search(urlsplit(landed).path) is not None:
        return True
    if len(text) < SIGN_IN_PAGE_MAX and _named_for_signing_in(view):
        return True
    if len(text) >= SIGN_IN_MAX_TEXT or any(
        len(paragraph.split()) >= _ARTICLE_PARAGRAPH_WORDS for paragraph in text.split("\n")
    ):
        return False
    body = view.tree.body
    page_chars = len(body.text(deep=True, strip=True)) if body is not None else 0
    return any(
        not in_furniture(node, page_chars)
        for node in view.tree.css("input")
        if (node.attributes.get("type") or "").strip().lower() == "password"
    )


def _named_for_signing_in(view: PageView) -> bool:
    """The page's own URL is a sign-in path (the read asked for the sign-in page), or its
    title is only a sign-in label: no vendor markup needed, in any language of the table.
    The sign-in box may be styled as a box (`in_furniture`) and the page may hold a blurb
    of the site; an article is neither at a sign-in path nor titled so. Not the first
    heading: a login modal's "Sign in" heading comes before a Jamaica Observer article's
    own (extraction-dev)."""
    url = view.page.url
    if url is not None and SIGN_IN_PATH.search(urlsplit(url).path) is not None:
        return True
    return says_only([view.page.title or "", view.raw_title], SIGN_IN_PHRASES)
