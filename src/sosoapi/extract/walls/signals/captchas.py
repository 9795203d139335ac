"""CAPTCHA widgets and waiting interstitials, whoever serves them: the embed code of
reCAPTCHA, hCaptcha and Turnstile, what a verification page asks, and the titles of
pages that make the browser wait (`challenge.py` judges with them)."""

from __future__ import annotations

import re

# A CAPTCHA widget (reCAPTCHA, hCaptcha, Turnstile): the vendors' documented embed code
# (`class="g-recaptcha"` + google.com/recaptcha/api.js; `class="h-captcha"` +
# js.hcaptcha.com/1/api.js; `class="cf-turnstile"` + challenges.cloudflare.com/turnstile).
# A widget is on contact forms and comment boxes too, so it counts only with a
# verification phrase and almost no other text.
CAPTCHA_NEEDLES = ("recaptcha", "hcaptcha", "h-captcha", "turnstile")
CAPTCHA_WIDGET = re.compile(
    r"class=[\"'][^\"'<>]{0,500}?\b(?:g-recaptcha|h-captcha|cf-turnstile)\b"
    r"|(?:google\.com|recaptcha\.net)/recaptcha/(?:api|enterprise)\.js"
    r"|hcaptcha\.com/1/api\.js|challenges\.cloudflare\.com/turnstile"
)
# What a verification page asks, in the languages the corpus covers (observed on
# Google's "unusual traffic" page, DataDome, PerimeterX and Cloudflare pages).
VERIFY_PHRASES = re.compile(
    r"verify (?:that )?you are (?:a )?human|verifying you are human|are you a robot"
    r"|not a robot|unusual traffic|human verification|security check|checking your browser"
    r"|confirm you are (?:a )?human|press (?:&|and) hold|prove you(?:'| a)re human"
    r"|sind sie ein mensch|kein roboter|sicherheits(?:über)?prüfung|ungewöhnlichen datenverkehr"
    r"|dass sie ein mensch sind|bekreft at du er et menneske|ikke en robot|sikkerhetskontroll"
    r"|uvanlig trafikk|أنك إنسان|لست روبوت|فحص أمني|التحقق الأمني",
    re.I,
)
# The title of an interstitial that makes the browser wait while a script proves it is
# one, whoever serves it: Cloudflare's old IUAM page ("Loading... please wait 5 seconds",
# a 2015 capture in the wild set, its markup past the error body egress keeps), "Just a
# moment...", Anubis's "Making sure you're not a bot!", DDoS-Guard's "DDoS protection";
# the other languages are the same pages' localised titles. With a script and almost no
# text of its own (INTERSTITIAL_TEXT_MAX) it is a challenge, vendor or not.
INTERSTITIAL_TITLE = re.compile(
    r"just a moment|please wait|one moment,? please|checking your browser"
    r"|making sure you(?:'|’)re not a bot|verifying (?:that )?you are (?:a )?human"
    r"|ddos protection|un instant|einen moment|un momento|подождите|请稍候|少々お待ちください",
    re.I,
)
