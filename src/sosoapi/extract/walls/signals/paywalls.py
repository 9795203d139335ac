"""Paywalls: the structured data that marks a subscriber article and what a paywall says
where its teaser stops (`teaser.py` judges with them)."""

from __future__ import annotations

import re

# Google's paywalled-content structured data (developers.google.com/search/docs,
# "Subscription and paywalled content"): `"isAccessibleForFree": false` on the article.
# Only whether it is found counts: a quote before the name would match as well, so the
# pattern does not try one at every character of the page (8 ms against 3.5 on a dev page).
NOT_FREE = re.compile(r"isAccessibleForFree[\"']?\s*:\s*[\"']?false\b", re.I)
# What a paywall says where the teaser stops (observed on English, German, Norwegian and
# Arabic news sites); a page naming "subscribe" in its menu is not enough.
# The Wall Street Journal's "To Read the Full Story / Subscribe / Sign In" (observed on the
# wild set's captures); the French, Spanish, Italian, Portuguese, Dutch, Russian and
# Chinese entries are those languages' "to read on" prompts ("Pour lire la suite, créez
# votre compte" on AOC). Badges such as "Exclusivo para Assinantes" or "réservé aux
# abonnés" label links in menus and lists too (a Correio article's menu has one), so they
# are not prompts.
PAYWALL_PHRASES = re.compile(
    r"subscribe to (?:continue|read)|to continue reading|continue reading with"
    r"|this (?:article|story) is (?:for|available to|exclusive to) subscribers|subscribers only"
    r"|to read the full (?:story|article)|to keep reading|for (?:paying )?members only"
    r"|weiterlesen mit|jetzt weiterlesen|für abonnenten|nur für abonnenten|mit \w+\+ weiterlesen"
    r"|for abonnenter|les hele saken|bli abonnent for å lese|kun for abonnenter"
    r"|للمشتركين فقط|اشترك لمتابعة القراءة|لمتابعة القراءة"
    r"|pour lire la suite|para seguir leyendo|per continuare a leggere|para continuar lendo"
    r"|om verder te lezen|чтобы продолжить чтение|续读|订阅后阅读",
    re.I,
)
