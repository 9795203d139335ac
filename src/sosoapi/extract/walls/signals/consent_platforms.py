"""Consent-management platforms and consent services: the containers their banners use,
what their walls say, and Google's and Yahoo's consent hosts (`consent.py` judges with
them), each with where it is documented or observed."""

from __future__ import annotations

import re

from sosoapi.extract.html_boilerplate import CONSENT_NAME_WORDS, named_selector

# Containers of consent-management platforms, as their served pages name them (observed;
# the ids sites restyle in the platforms' customisation guides): OneTrust
# (#onetrust-consent-sdk), Usercentrics (#usercentrics-root), Didomi (#didomi-host),
# Quantcast Choice (.qc-cmp2-container), Sourcepoint (div[id^=sp_message_container_]),
# Cookiebot (#CybotCookiebotDialog), TrustArc (#truste-consent-track), consentmanager
# (#cmpbox); then any element named for cookies or consent (observed on hand-made banners;
# the names are html_boilerplate's CONSENT_NAME_WORDS, which it prunes as furniture too).
BANNER_SELECTOR = (
    "#onetrust-consent-sdk, #onetrust-banner-sdk, #usercentrics-root, #didomi-host,"
    " .qc-cmp2-container, [id^=sp_message_container], #CybotCookiebotDialog,"
    " #truste-consent-track, #cmpbox, "
    + named_selector(CONSENT_NAME_WORDS)
    + ", [aria-label*=cookie i], [aria-label*=consent i]"
)
# Consent-wall phrases per language (lower case), in three classes: a wall asks to accept,
# and says why (consent, choices, partners) or offers the paid way out (PUR, "subscribe").
# Observed on Sourcepoint, Usercentrics, OneTrust, Didomi, Quantcast and Google consent
# pages in English, German, Norwegian and Arabic, and the German "PUR" walls.
ACCEPT_PHRASES = (
    "accept all", "accept cookies", "accept and continue", "agree and continue", "i accept",
    "allow all", "alle akzeptieren", "akzeptieren und weiter", "alle cookies akzeptieren",
    "zustimmen und weiter", "godta alle", "aksepter alle", "godta og fortsett", "tillat alle",
    "jeg godtar", "قبول الكل", "قبول الجميع", "قبول جميع", "أوافق",
)  # fmt: skip
CONSENT_PHRASES = (
    "we need your consent", "we value your privacy", "your privacy choices", "manage options",
    "manage preferences", "manage cookies", "cookie settings", "legitimate interest",
    "our partners", "consent", "wir brauchen ihre zustimmung", "ihre zustimmung",
    "einwilligung", "datenschutz", "einstellungen", "partner", "vi trenger ditt samtykke",
    "samtykke", "personvern", "innstillinger", "partnere", "before you continue to google",
    "bevor sie zu google weitergehen", "før du fortsetter til google", "نحتاج إلى موافقتك",
    "موافقتك", "الخصوصية", "إدارة الخيارات", "ملفات تعريف الارتباط", "شركائنا",
)  # fmt: skip
SUBSCRIBE_PHRASES = (
    " pur ", " pur-", "subscribe", "ad-free", "without ads", "ohne werbung", "werbefrei",
    "abonnieren", " abo ", "abonner", "uten reklame", "reklamefri", "اشترك", "بدون إعلانات",
)  # fmt: skip
# The consent services of Google (consent.google.<tld>, consent.youtube.com) and Yahoo
# (consent.yahoo.com, guce.yahoo.com) serve their interstitial in every language from
# their own host, and its choices are forms posting back to it (observed on the served
# pages: `<form action="https://consent.google.com/save">`, Yahoo's
# `consent.yahoo.com/v2/collectConsent`); a page built around such a form, or a read
# that landed on such a host, is the consent page whatever its words.
_CONSENT_HOST = r"consent\.(?:google|youtube)\.[a-z.]{2,12}|consent\.yahoo\.com|guce\.yahoo\.com"
CONSENT_FORM = re.compile(
    rf"<form\b[^<>]{{0,500}}?\baction=[\"']?https?://(?:{_CONSENT_HOST})/", re.I
)
CONSENT_LANDING = re.compile(rf"^(?:{_CONSENT_HOST})$", re.I)
# What a wall's "Accept all" is: a button, a link, a submit input or an element in the
# button role (the CMPs' served markup and Google's consent page).
CONTROL_SELECTOR = "button, a, input[type=submit], input[type=button], [role=button]"
