"""Bot-defence challenge and block pages (any status) -> `access_denied`, nothing kept.

A vendor's decisive header alone; else its markup, or its title with its headers, on a
page of little other text; else a CAPTCHA widget with a verification phrase, or a
waiting interstitial's title with a script, whoever serves them.
"""

from __future__ import annotations

from collections.abc import Mapping

from sosoapi.extract.walls.signals.bot_defences import VENDORS, Vendor
from sosoapi.extract.walls.signals.captchas import (
    CAPTCHA_NEEDLES,
    CAPTCHA_WIDGET,
    INTERSTITIAL_TITLE,
    VERIFY_PHRASES,
)
from sosoapi.extract.walls.view import PageView

CHALLENGE_TEXT_MAX = 1_500  # a challenge page's own words; an article has more
CAPTCHA_TEXT_MAX = 600
INTERSTITIAL_TEXT_MAX = 300


def decisive_vendor(headers: Mapping[str, str]) -> str | None:
    for vendor in VENDORS:
        for name, pattern in vendor.challenge_headers:
            value = headers.get(name)
            if value is not None and pattern.search(value):
                return vendor.name
    return None


def challenge_vendor(view: PageView, text: str) -> str | None:
    """The vendor whose challenge or block page this is, when it holds little else."""
    if len(text) >= CHALLENGE_TEXT_MAX:
        return None
    headers, markup = view.page.headers, view.markup
    title = view.page.title or ""
    for vendor in VENDORS:
        hit = (
            vendor.markup is not None
            and view.has(vendor.needles)
            and vendor.markup.search(markup) is not None
        )
        if not hit and vendor.titles is not None:
            titled = any(vendor.titles.match(t) for t in (title, view.raw_title) if t)
            hit = titled and _served_by(vendor, headers)
        if hit:
            if vendor.not_a_challenge is not None and vendor.not_a_challenge.search(markup):
                return None
            return vendor.name
    if (
        len(text) < CAPTCHA_TEXT_MAX
        and view.has(CAPTCHA_NEEDLES)
        and CAPTCHA_WIDGET.search(markup)
        and VERIFY_PHRASES.search(f"{title} {view.raw_title} {text}")
    ):
        return "captcha"
    if (
        len(text) < INTERSTITIAL_TEXT_MAX
        and any(INTERSTITIAL_TITLE.search(t) for t in (title, view.raw_title) if t)
        and (view.has(("<script",)) or _names_a_vendor(headers))
    ):
        return "interstitial"
    return None


def _names_a_vendor(headers: Mapping[str, str]) -> bool:
    """A header a bot-defence vendor puts on every answer it serves (`server: cloudflare`):
    with a waiting title it stands for the script an error body cut at its bound lost."""
    return any(_served_by(vendor, headers) for vendor in VENDORS)


def _served_by(vendor: Vendor, headers: Mapping[str, str]) -> bool:
    return any(
        (value := headers.get(name)) is not None and pattern.search(value)
        for name, pattern in vendor.vendor_headers
    )
