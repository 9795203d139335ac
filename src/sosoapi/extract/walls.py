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
..." stays `ready` with its own text. The signals are tables below, each entry naming
where it is documented or observed; the corpus in tests/data/walls (README there) holds a
page for each, bench/extraction.py `--walls` counts false walls on the dev sets, and
bench/walls_wild.py gives the verdict per class on pages captured in the wild.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from typing import Any
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.html_main import in_furniture
from sosoapi.extract.limits import WHOLE_TEXT_DEFAULT
from sosoapi.extract.text_plain import normalize_plain_text

# ---------------------------------------------------------------------------------------
# Bot defences: challenge and block pages.


@dataclass(frozen=True, slots=True)
class Vendor:
    """One bot-defence service's signals.

    `challenge_headers` mark a challenge answer and nothing else (decisive alone);
    `vendor_headers` name the vendor on every answer it serves (they prove nothing alone;
    with a vendor title and little text they do); `markup` is found only on the vendor's
    challenge or block page (decisive with little other text); `titles` are the titles
    its pages carry; `not_a_challenge` marks a page of the vendor that is a real rate
    limit, which keeps the status's own reason.
    """

    name: str
    needles: tuple[str, ...] = ()  # literals `markup` needs (lower case), checked first: cheap
    challenge_headers: tuple[tuple[str, re.Pattern[str]], ...] = ()
    vendor_headers: tuple[tuple[str, re.Pattern[str]], ...] = ()
    markup: re.Pattern[str] | None = None
    titles: re.Pattern[str] | None = None
    not_a_challenge: re.Pattern[str] | None = None


def _re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


_ANY = _re(r".")
VENDORS: tuple[Vendor, ...] = (
    Vendor(
        "cloudflare",
        needles=(
            "_cf_chl",
            "challenge-",
            "cf-error-details",
            "cf-please-wait",
            "trk_jschal",
            "cf-browser-verification",
        ),
        # `cf-mitigated: challenge` is sent on challenge responses only: Cloudflare docs,
        # "Detect a Challenge Page response" (developers.cloudflare.com/cloudflare-challenges).
        challenge_headers=(("cf-mitigated", _re(r"challenge", re.I)),),
        # `server: cloudflare` and `cf-ray` are on every answer through Cloudflare
        # (wafw00f plugins/cloudflare.py).
        vendor_headers=(("server", _re(r"cloudflare", re.I)), ("cf-ray", _ANY)),
        # The managed/JS challenge's inline `window._cf_chl_opt`, its `__cf_chl_tk` form
        # action and `#challenge-form` / `#challenge-running` (not the JS-detections script
        # /cdn-cgi/challenge-platform/scripts/jsd/, which is on ordinary pages too), the
        # `cf-error-details` box of the "Attention Required" and 1020 block pages: observed
        # on served pages, and the selectors FlareSolverr (src/flaresolverr_service.py) and
        # browserless (its Cloudflare solver notes) wait on.
        markup=_re(
            r"window\._cf_chl_opt|__cf_chl_(?:f_)?tk="
            r"|id=[\"']?(?:challenge-(?:form|running|stage|error-text)|cf-error-details"
            r"|cf-please-wait|trk_jschal_js)\b|cf-browser-verification"
        ),
        # FlareSolverr's CHALLENGE_TITLES and ACCESS_DENIED_TITLES.
        titles=_re(
            r"^(?:just a moment\.*|attention required!? \| cloudflare|access denied"
            r"|one more step|please wait\.*)$",
            re.I,
        ),
        # Error 1015 "You are being rate limited" is a rate limit (retrying later helps).
        not_a_challenge=_re(r"error(?:\s+code)?:?\s*1015\b|you are being rate limited", re.I),
    ),
    Vendor(
        "datadome",
        needles=("captcha-delivery.com", "var dd"),
        # `x-datadome` / `x-dd-b` are set on answers of DataDome-protected sites (observed
        # on their answers; `x-datadome: protected` on ordinary pages too).
        vendor_headers=(("x-datadome", _ANY), ("x-dd-b", _ANY)),
        # The interstitial and CAPTCHA pages load from captcha-delivery.com and carry
        # `var dd={'rt':'c'|'i',...}` (observed on served pages; captcha-delivery.com is the
        # host DataDome's docs name for its challenge pages).
        markup=_re(r"(?:geo|ct|c|i)\.captcha-delivery\.com|var\s+dd\s*=\s*\{\s*['\"]rt['\"]"),
    ),
    Vendor(
        "perimeterx",
        needles=("px-captcha", "captcha.px-", "_pxcaptcha"),
        # HUMAN (PerimeterX) block page: `<div id="px-captcha">` (the element HUMAN's custom
        # block page docs tell sites to keep) and its captcha script from captcha.px-cdn.net
        # / px-cloud.net (observed);
        # not `window._pxAppId`, which the sensor snippet sets on every protected page.
        markup=_re(r"id=[\"']?px-captcha\b|captcha\.px-(?:cdn|cloud)\.net|_pxCaptcha"),
        titles=_re(r"^(?:access to this page has been denied\.?|human verification)$", re.I),
    ),
    Vendor(
        "akamai",
        needles=("edgesuite.net", "/_sec/cp_challenge/", "sec-if-cpt-container"),
        # `server: AkamaiGHost` (wafw00f plugins/kona.py).
        vendor_headers=(("server", _re(r"AkamaiGHost", re.I)),),
        # The edge's "Access Denied ... Reference #18.xxxx" page links errors.edgesuite.net;
        # Bot Manager's crypto challenge loads /_sec/cp_challenge/ into
        # `#sec-if-cpt-container` (observed).
        markup=_re(r"errors\.edgesuite\.net|/_sec/cp_challenge/|sec-if-cpt-container"),
        titles=_re(r"^access denied$", re.I),
    ),
    Vendor(
        "imperva",
        needles=("_incapsula_resource", "incapsula incident", "distil_r_"),
        # `x-iinfo`, `x-cdn: Incapsula|Imperva` (observed on answers through Imperva).
        vendor_headers=(("x-iinfo", _ANY), ("x-cdn", _re(r"incapsula|imperva", re.I))),
        # "Request unsuccessful. Incapsula incident ID" and its `/_Incapsula_Resource`
        # iframe (wafw00f plugins/incapsula.py; the resource's analytics script is on
        # ordinary protected pages too, the iframe is not); Imperva Advanced Bot Protection
        # (ex Distil) "Pardon Our Interruption" with `distil_r_` paths (wafw00f distil.py).
        markup=_re(
            r"<iframe\b[^>]*_Incapsula_Resource|incapsula incident id"
            r"|distil_r_(?:captcha|blocked)",
            re.I,
        ),
        titles=_re(r"^pardon our interruption\.*$", re.I),
    ),
    Vendor(
        "aws_waf",
        needles=("gokuprops", "awswafcookiedomainlist"),
        # `x-amzn-waf-action: challenge|captcha` on CAPTCHA (405) and Challenge (202)
        # responses (AWS WAF Developer Guide, "CAPTCHA and Challenge actions").
        challenge_headers=(("x-amzn-waf-action", _re(r"challenge|captcha", re.I)),),
        # The interstitial's inline `window.gokuProps` and `awsWafCookieDomainList`
        # (observed on served challenge pages; the SDK's *.token.awswaf.com script is on
        # integrated ordinary pages too).
        markup=_re(r"gokuProps|awsWafCookieDomainList"),
    ),
    Vendor(
        "sucuri",
        needles=("sucuri",),
        # `x-sucuri-block` is sent on blocks only; `x-sucuri-id`, `server: Sucuri/Cloudproxy`
        # on every answer (wafw00f plugins/sucuri.py).
        challenge_headers=(("x-sucuri-block", _ANY),),
        vendor_headers=(("x-sucuri-id", _ANY), ("server", _re(r"sucuri", re.I))),
        # Block page: cloudproxy@sucuri.net, sucuri.net/privacy-policy, its block CSS
        # (wafw00f plugins/sucuri.py); JS challenge: the `sucuri_cloudproxy_js` cookie.
        markup=_re(
            r"cloudproxy@sucuri\.net|sucuri\.net/privacy-policy|sucuri[-_]firewall[-_]block"
            r"|sucuri_cloudproxy_js",
            re.I,
        ),
        titles=_re(r"^sucuri website firewall.{0,20}access denied$", re.I),
    ),
)
# A CAPTCHA widget (reCAPTCHA, hCaptcha, Turnstile): the vendors' documented embed code
# (`class="g-recaptcha"` + google.com/recaptcha/api.js; `class="h-captcha"` +
# js.hcaptcha.com/1/api.js; `class="cf-turnstile"` + challenges.cloudflare.com/turnstile).
# A widget is on contact forms and comment boxes too, so it counts only with a
# verification phrase and almost no other text.
_CAPTCHA_NEEDLES = ("recaptcha", "hcaptcha", "h-captcha", "turnstile")
_CAPTCHA_WIDGET = _re(
    r"class=[\"'][^\"'<>]{0,500}?\b(?:g-recaptcha|h-captcha|cf-turnstile)\b"
    r"|(?:google\.com|recaptcha\.net)/recaptcha/(?:api|enterprise)\.js"
    r"|hcaptcha\.com/1/api\.js|challenges\.cloudflare\.com/turnstile"
)
# What a verification page asks, in the languages the corpus covers (observed on
# Google's "unusual traffic" page, DataDome, PerimeterX and Cloudflare pages).
_VERIFY_PHRASES = _re(
    r"verify (?:that )?you are (?:a )?human|verifying you are human|are you a robot"
    r"|not a robot|unusual traffic|human verification|security check|checking your browser"
    r"|confirm you are (?:a )?human|press (?:&|and) hold|prove you(?:'| a)re human"
    r"|sind sie ein mensch|kein roboter|sicherheits(?:über)?prüfung|ungewöhnlichen datenverkehr"
    r"|dass sie ein mensch sind|bekreft at du er et menneske|ikke en robot|sikkerhetskontroll"
    r"|uvanlig trafikk|أنك إنسان|لست روبوت|فحص أمني|التحقق الأمني",
    re.I,
)
CHALLENGE_TEXT_MAX = 1_500  # a challenge page's own words; an article has more
CAPTCHA_TEXT_MAX = 600
# The title of an interstitial that makes the browser wait while a script proves it is
# one, whoever serves it: Cloudflare's old IUAM page ("Loading... please wait 5 seconds",
# a 2015 capture in the wild set, its markup past the error body egress keeps), "Just a
# moment...", Anubis's "Making sure you're not a bot!", DDoS-Guard's "DDoS protection";
# the other languages are the same pages' localised titles. With a script and almost no
# text of its own (INTERSTITIAL_TEXT_MAX) it is a challenge, vendor or not.
_INTERSTITIAL_TITLE = _re(
    r"just a moment|please wait|one moment,? please|checking your browser"
    r"|making sure you(?:'|’)re not a bot|verifying (?:that )?you are (?:a )?human"
    r"|ddos protection|un instant|einen moment|un momento|подождите|请稍候|少々お待ちください",
    re.I,
)
INTERSTITIAL_TEXT_MAX = 300

# ---------------------------------------------------------------------------------------
# Consent and subscription walls.

# Containers of consent-management platforms, as their served pages name them (observed;
# the ids sites restyle in the platforms' customisation guides): OneTrust
# (#onetrust-consent-sdk), Usercentrics (#usercentrics-root), Didomi (#didomi-host),
# Quantcast Choice (.qc-cmp2-container), Sourcepoint (div[id^=sp_message_container_]),
# Cookiebot (#CybotCookiebotDialog), TrustArc (#truste-consent-track), consentmanager
# (#cmpbox); then any element named for cookies or consent (observed on hand-made banners).
_BANNER_SELECTOR = (
    "#onetrust-consent-sdk, #onetrust-banner-sdk, #usercentrics-root, #didomi-host,"
    " .qc-cmp2-container, [id^=sp_message_container], #CybotCookiebotDialog,"
    " #truste-consent-track, #cmpbox, [id*=cookie i], [class*=cookie i], [id*=consent i],"
    " [class*=consent i], [id*=gdpr i], [class*=gdpr i], [aria-label*=cookie i],"
    " [aria-label*=consent i]"
)
_BANNER_MAX = 4_000  # characters: a banner is short; a longer match is the page itself
# Consent-wall phrases per language (lower case), in three classes: a wall asks to accept,
# and says why (consent, choices, partners) or offers the paid way out (PUR, "subscribe").
# Observed on Sourcepoint, Usercentrics, OneTrust, Didomi, Quantcast and Google consent
# pages in English, German, Norwegian and Arabic, and the German "PUR" walls.
_ACCEPT = (
    "accept all", "accept cookies", "accept and continue", "agree and continue", "i accept",
    "allow all", "alle akzeptieren", "akzeptieren und weiter", "alle cookies akzeptieren",
    "zustimmen und weiter", "godta alle", "aksepter alle", "godta og fortsett", "tillat alle",
    "jeg godtar", "قبول الكل", "قبول الجميع", "قبول جميع", "أوافق",
)  # fmt: skip
_CONSENT = (
    "we need your consent", "we value your privacy", "your privacy choices", "manage options",
    "manage preferences", "manage cookies", "cookie settings", "legitimate interest",
    "our partners", "consent", "wir brauchen ihre zustimmung", "ihre zustimmung",
    "einwilligung", "datenschutz", "einstellungen", "partner", "vi trenger ditt samtykke",
    "samtykke", "personvern", "innstillinger", "partnere", "before you continue to google",
    "bevor sie zu google weitergehen", "før du fortsetter til google", "نحتاج إلى موافقتك",
    "موافقتك", "الخصوصية", "إدارة الخيارات", "ملفات تعريف الارتباط", "شركائنا",
)  # fmt: skip
_SUBSCRIBE = (
    " pur ", " pur-", "subscribe", "ad-free", "without ads", "ohne werbung", "werbefrei",
    "abonnieren", " abo ", "abonner", "uten reklame", "reklamefri", "اشترك", "بدون إعلانات",
)  # fmt: skip
WALL_REST_MAX = 300  # characters of text left beside the wall's own words
# The consent services of Google (consent.google.<tld>, consent.youtube.com) and Yahoo
# (consent.yahoo.com, guce.yahoo.com) serve their interstitial in every language from
# their own host, and its choices are forms posting back to it (observed on the served
# pages: `<form action="https://consent.google.com/save">`, Yahoo's
# `consent.yahoo.com/v2/collectConsent`); a page built around such a form, or a read
# that landed on such a host, is the consent page whatever its words.
_CONSENT_HOST = r"consent\.(?:google|youtube)\.[a-z.]{2,12}|consent\.yahoo\.com|guce\.yahoo\.com"
_CONSENT_FORM = _re(rf"<form\b[^<>]{{0,500}}?\baction=[\"']?https?://(?:{_CONSENT_HOST})/", re.I)
_CONSENT_LANDING = _re(rf"^(?:{_CONSENT_HOST})$", re.I)
CONSENT_PAGE_MAX = 5_000  # characters: Google's consent page says about 2,500 at most
# What a wall's "Accept all" is: a button, a link, a submit input or an element in the
# button role (the CMPs' served markup and Google's consent page).
_CONTROL_SELECTOR = "button, a, input[type=submit], input[type=button], [role=button]"
_CONTROL_LABEL_MAX = 80
CONSENT_TEXT_MAX = 2_000  # below this the page's banners are read even if the text has none

# ---------------------------------------------------------------------------------------
# Soft 404s and error pages served 200.

# A title, heading or first line that is only one of these (after a "404" or "error"
# part is stripped) says the page is missing. Observed: WordPress ("Page not found",
# "Oops! That page can't be found."), Next.js ("404: This page could not be found."),
# Gatsby ("404: Not found"), Django ("Page not found (404)"), Rails ("The page you were
# looking for doesn't exist."), Apache and nginx ("404 Not Found", "The requested URL was
# not found on this server."), IIS ("File or directory not found"), and German,
# Norwegian and Arabic news and government sites.
NOT_FOUND_PHRASES = frozenset(
    {
        # en
        "not found", "page not found", "file not found", "document not found",
        "page cannot be found", "page can't be found", "that page can't be found",
        "this page could not be found", "page could not be found",
        "the page you requested could not be found",
        "the page you are looking for could not be found",
        "the page you're looking for can't be found",
        "the page you were looking for doesn't exist",
        "page does not exist", "this page does not exist", "page doesn't exist",
        "this page doesn't exist", "nothing found", "nothing was found",
        "we can't find that page", "we couldn't find that page",
        "we can't find the page you're looking for",
        "the requested url was not found on this server", "file or directory not found",
        "the page you requested was not found", "page not found sorry",
        # de
        "seite nicht gefunden", "nicht gefunden", "die seite wurde nicht gefunden",
        "seite wurde nicht gefunden", "die angeforderte seite wurde nicht gefunden",
        "die gesuchte seite wurde nicht gefunden", "diese seite existiert nicht",
        "die seite existiert nicht", "seite existiert nicht",
        "die seite konnte nicht gefunden werden", "seite konnte nicht gefunden werden",
        "die seite gibt es nicht", "diese seite gibt es nicht",
        # no (nb, nn)
        "siden finnes ikke", "fant ikke siden", "siden ble ikke funnet", "side ikke funnet",
        "finner ikke siden", "vi finner ikke siden", "vi fant ikke siden", "siden eksisterer ikke",
        "siden du leter etter finnes ikke", "ikke funnet", "sida finst ikkje", "fann ikkje sida",
        # ar
        "الصفحة غير موجودة", "لم يتم العثور على الصفحة", "الصفحة المطلوبة غير موجودة",
        "الصفحة التي تبحث عنها غير موجودة", "هذه الصفحة غير موجودة", "الصفحة غير متوفرة",
        "الصفحة المطلوبة غير متوفرة", "لم يتم العثور على هذه الصفحة",
        # fr, es, it, pt
        "page introuvable", "page non trouvée", "página no encontrada", "pagina non trovata",
        "página não encontrada",
    }
)  # fmt: skip
# A web framework's error page served 200: the origin failed (`unavailable`). Spring Boot's
# "Whitelabel Error Page", Next.js "Application error: a client-side exception has
# occurred", and the plain server errors (observed).
SERVER_ERROR_PHRASES = frozenset(
    {
        "whitelabel error page", "internal server error", "server error",
        "application error a client side exception has occurred", "service unavailable",
        "bad gateway", "gateway timeout", "interner serverfehler", "intern serverfeil",
        "خطأ داخلي في الخادم",
    }
)  # fmt: skip
# A refusal served 200: a web server's or edge's "Forbidden" page (Apache and nginx
# "403 Forbidden"; Incapsula's "Forbidden URL ... HTTP Error 403. The request URL is
# forbidden.", captured by newspaper4k in place of an article). It counts only where the
# page also names the status 403, so a story titled "Forbidden" stays a story.
FORBIDDEN_PHRASES = frozenset(
    {
        "forbidden", "403 forbidden", "forbidden url", "access forbidden", "access denied",
        "zugriff verweigert", "verboten", "accès interdit", "accès refusé", "acceso denegado",
        "prohibido", "accesso negato", "vietato", "acesso negado", "proibido", "toegang geweigerd",
        "dostęp zabroniony", "доступ запрещен", "доступ запрещён", "禁止访问", "アクセス拒否",
    }
)  # fmt: skip
_STATUS_403 = _re(r"\b403\b")
# Tokens a missing page puts around its message ("Error 404 - ...", "Oops! ...").
_ERROR_AFFIXES = frozenset(
    {"404", "410", "500", "502", "503", "error", "fehler", "feil", "خطأ", "oops", "hoppla",
     "ups", "sorry", "beklager", "entschuldigung", "عذرا", "عذرًا", "عذراً", "http", "status"}
)  # fmt: skip
_TITLE_PARTS = re.compile(r"\s+[|–—·»]\s+|\s+-{1,2}\s+|\s+::\s+|\s*\|\s*")
_TOKENS = re.compile(r"[\w'’]+")
# WordPress marks its 404 template on <body> (`error404`, WordPress body_class docs).
_WORDPRESS_404 = _re(r"<body\b[^<>]{0,500}?\bclass=[\"'][^\"'<>]{0,500}?\berror404\b", re.I)
# Express's default 404 is one line: `Cannot GET /path` (observed).
_EXPRESS_404 = _re(r"^Cannot (?:GET|POST|HEAD) /\S*$")
SOFT_404_TEXT_MAX = 1_500
# A site's home page, where sites send the reader of a removed item: `/`, an index file,
# `/home`, or a language's root (`/en/`, `/pt-br`). Observed: gone videos and articles
# redirected to the site's front page (issue 38).
_HOME_PATH = _re(r"^(?:/?|/index\.\w{2,5}|/home/?|/[a-z]{2}(?:[-_][a-z]{2})?/?)$", re.I)
_SITE_PREFIXES = ("www.", "m.", "amp.")

# ---------------------------------------------------------------------------------------
# Subscriber teasers (`isAccessibleForFree: false`).

# Google's paywalled-content structured data (developers.google.com/search/docs,
# "Subscription and paywalled content"): `"isAccessibleForFree": false` on the article.
_NOT_FREE = _re(r"[\"']?isAccessibleForFree[\"']?\s*:\s*[\"']?false\b", re.I)
# What a paywall says where the teaser stops (observed on English, German, Norwegian and
# Arabic news sites); a page naming "subscribe" in its menu is not enough.
# The Wall Street Journal's "To Read the Full Story / Subscribe / Sign In" (observed on the
# wild set's captures); the French, Spanish, Italian, Portuguese, Dutch, Russian and
# Chinese entries are those languages' "to read on" prompts ("Pour lire la suite, créez
# votre compte" on AOC). Badges such as "Exclusivo para Assinantes" or "réservé aux
# abonnés" label links in menus and lists too (a Correio article's menu has one), so they
# are not prompts.
_PAYWALL_PHRASES = _re(
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
TEASER_TEXT_MAX = 2_500
# Without `isAccessibleForFree` markup, the prompt must follow where the text stops: this
# many characters of the visible page after the text's last words.
_PROMPT_SPAN = 300
_TAIL = 60  # characters of the text's end looked up in the visible page

# ---------------------------------------------------------------------------------------
# Script shells and their embedded data.

# The mount points of React (create-react-app `#root`), Vue (`#app`), Next.js (`#__next`),
# Nuxt (`#__nuxt`), Gatsby (`#___gatsby`), SvelteKit and Angular (`<app-root>`), left
# empty in the served HTML; a `<noscript>` that asks for JavaScript (their templates).
_SHELL_MARKUP = _re(
    r"<div\b[^<>]{0,300}?\bid=[\"']?(?:root|app|__next|__nuxt|___gatsby|svelte)(?=[\"'\s>])"
    r"[^<>]{0,300}>\s*</div>"
    r"|<app-root\b|<noscript\b[^<>]{0,300}>(?:(?!</noscript).){0,400}?javascript",
    re.I | re.S,
)
SHELL_TEXT_MAX = 300  # "empty or tiny" visible text
EMBEDDED_MIN = 200  # characters of embedded prose worth reading
# Openers of the script elements read as data; their content runs to the next `</script`
# (found with str.find, so a page of unclosed openers costs one pass, not one per opener).
_LD_JSON = _re(r"<script\b[^<>]{0,300}?type=[\"']?application/ld\+json[^<>]{0,300}>", re.I)
_SCRIPT_JSON = _re(r"<script\b[^<>]{0,300}?\bid=[\"']?(__NEXT_DATA__|__NUXT_DATA__)[^<>]{0,300}>")
_EMBEDDED_MAX = 20  # data blocks read per kind: a page has one or two
_STATE_ASSIGNMENT = _re(r"window\.(__NUXT__|__INITIAL_STATE__)\s*=\s*")
# schema.org types whose `articleBody` is the article (schema.org/Article and subtypes).
_ARTICLE_TYPES = frozenset(
    {"article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
     "opinionnewsarticle", "backgroundnewsarticle", "reviewnewsarticle", "techarticle",
     "scholarlyarticle", "liveblogposting", "report", "socialmediaposting", "posting"}
)  # fmt: skip
# Keys whose plain-string value is an article body in Next.js page props and Nuxt state
# (observed in WordPress-, Contentful- and Sanity-backed Next.js and Nuxt sites).
_BODY_KEYS = frozenset(
    {"articlebody", "body", "bodytext", "bodyhtml", "body_html", "content", "contenthtml",
     "content_html", "contenttext", "text", "html", "articletext", "storytext", "fulltext"}
)  # fmt: skip
_JSON_NODES_MAX = 200_000
# Characters of embedded bodies read per page, all bodies together: twice the text an
# evidence revision keeps by default.
_EMBEDDED_CHARS_MAX = 2 * WHOLE_TEXT_DEFAULT
_HTML_IN_TEXT = _re(r"</?(?:p|div|br|h[1-6]|li|ul|blockquote|span|a|strong|em)\b", re.I)

# ---------------------------------------------------------------------------------------
# Chrome: navigation, headers, footers, cookie notices.

_CHROME_SELECTOR = (
    "nav, header, footer, aside, noscript, [role=navigation], [role=banner],"
    " [role=contentinfo], " + _BANNER_SELECTOR
)
CHROME_TEXT_MAX = 200
# Bounded patterns only: a hostile page of unclosed tags must cost one pass, not one per tag.
_TAG = re.compile(r"<[^<>]*>")
_INVISIBLE_OPEN = re.compile(r"<(script|style|template)\b[^<>]{0,2000}>", re.I)
_TITLE_ELEMENT = re.compile(r"<title\b[^<>]{0,300}>(.{0,2000}?)</title", re.I | re.S)
_H1_ELEMENT = re.compile(r"<h1\b[^<>]{0,300}>(.{0,2000}?)</h1", re.I | re.S)
_BANNERS_MAX = 50_000  # characters of banner text kept for the look-up
_MATCHES_READ = 1_000  # banner or chrome matches read at most (nested ones repeat text)
_TEXT_READ_MAX = 2_000_000  # characters of match text read at most, kept or not


@dataclass(frozen=True, slots=True)
class Page:
    """A decoded HTML page as the reader received it."""

    markup: str
    title: str | None = None
    status: int | None = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    redirected_to: str | None = None  # where a redirect landed; None: the URL asked for
    url: str | None = None  # the page's own URL (where the read ended)
    asked: str | None = None  # the URL the read asked for, where a redirect moved it


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the page is: the text to keep, the conditions met, and a name for it.

    `kind` is "page" (the source's content as extracted), or what replaced or removed
    it: "challenge:<vendor>", "consent", "banner" (an article with its banner cut out),
    "soft_404", "server_error", "forbidden", "redirected_home", "teaser",
    "embedded:<source>", "shell", "chrome", "sign_in".
    """

    text: str
    conditions: tuple[Reason, ...] = ()
    kind: str = "page"


# The reasons a judgement gives when the page is not the source's content at all: the
# reader keeps neither its text nor its URL as the source's.
WALL_REASONS = frozenset(
    {Reason.ACCESS_DENIED, Reason.LOGIN_REQUIRED, Reason.NOT_FOUND, Reason.UNAVAILABLE}
)


def judge(page: Page, main_text: Callable[[], str]) -> Verdict:
    """What `page` is, given the extractor's main text (called once, only when needed).

    Non-2xx pages (the error pages egress keeps for 403, 405, 429 and 503) are judged
    for a challenge only; everything else keeps the status's own reason.
    """
    view = _View(page)
    vendor = _decisive_challenge(page.headers)
    if vendor:
        return Verdict("", (Reason.ACCESS_DENIED,), f"challenge:{vendor}")
    text = main_text()
    vendor = _challenge(view, text)
    if vendor:
        return Verdict("", (Reason.ACCESS_DENIED,), f"challenge:{vendor}")
    if page.status is not None and not 200 <= page.status < 300:
        return Verdict(text)
    verdict = _first_verdict(view, text)
    if WALL_REASONS.isdisjoint(verdict.conditions) and _sign_in(view, verdict.text):
        return Verdict("", (Reason.LOGIN_REQUIRED,), "sign_in")
    return verdict


def _first_verdict(view: _View, text: str) -> Verdict:
    """The first step's verdict on a 2xx page, or the extractor's text as the page."""
    for step in (_sent_home, _consent, _missing, _shell, _teaser, _chrome):
        verdict = step(view, text)
        if verdict is not None:
            return verdict
    return Verdict(text)


class _View:
    """The page, with what the judgements read computed once and only when asked."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.markup = page.markup

    @cached_property
    def tree(self) -> LexborHTMLParser:
        """A fresh parse: the extractor edits its own tree as it goes."""
        return LexborHTMLParser(self.markup, scripting=True)

    @cached_property
    def lowered(self) -> str:
        return self.markup.lower()

    def has(self, needles: tuple[str, ...]) -> bool:
        """Any of the (lower-case) literals in the markup: a cheap test before a regex."""
        return any(needle in self.lowered for needle in needles)

    @cached_property
    def raw_title(self) -> str:
        """The first `<title>` as HTML reads it (raw text: a tag in it is text too)."""
        match = _TITLE_ELEMENT.search(self.markup)
        return _collapse(html.unescape(match.group(1))) if match else ""

    @cached_property
    def heading(self) -> str:
        return _element_text(self.markup, _H1_ELEMENT)

    @cached_property
    def banner(self) -> str:
        """The text of the page's consent and cookie containers, collapsed."""
        return " ".join(_texts(self.tree, _BANNER_SELECTOR, _BANNER_MAX))[:_BANNERS_MAX]

    @cached_property
    def offers_to_accept(self) -> bool:
        """A button, link or submit input says "Accept all" (or the like): a wall asks with
        a control; a story quoting a consent dialog quotes it in its paragraphs."""
        for node in self.tree.css(_CONTROL_SELECTOR):
            label = _collapse(node.text(deep=True) or node.attributes.get("value") or "")
            if len(label) <= _CONTROL_LABEL_MAX and _says_any(f" {label.lower()} ", _ACCEPT):
                return True
        return False

    @cached_property
    def chrome(self) -> str:
        return " ".join(_texts(self.tree, _CHROME_SELECTOR, None))[:_BANNERS_MAX]


def _texts(tree: LexborHTMLParser, selector: str, most: int | None) -> Iterator[str]:
    """Collapsed text of each match of `selector` (each under `most` characters); nested
    matches repeat their text, which is harmless where it is only looked up in.

    Bounded for hostile nesting (every level named `cookie`), where each match reads its
    whole subtree: reading stops once `_BANNERS_MAX` characters are gathered (the callers
    keep no more), after `_MATCHES_READ` matches, or after `_TEXT_READ_MAX` characters read
    in all. On the 1,335 dev pages the most needed were 440 matches and 615,392 characters
    (bench/README.md, "Hostile pages"), so no real page reaches either bound."""
    gathered = read = 0
    for node in islice(tree.css(selector), _MATCHES_READ):
        if gathered >= _BANNERS_MAX or read >= _TEXT_READ_MAX:
            return
        text = _collapse(node.text(deep=True, separator=" "))
        read += len(text)
        if text and (most is None or len(text) <= most):
            gathered += len(text) + 1
            yield text


def _element_text(markup: str, element: re.Pattern[str]) -> str:
    """The text of the first such element, read from the markup (no tree needed)."""
    match = element.search(markup)
    return _collapse(html.unescape(_TAG.sub(" ", match.group(1)))) if match else ""


def _visible(markup: str) -> str:
    """The markup without scripts, styles and tags: roughly what a reader sees."""
    shown: list[str] = []
    at, lowered = 0, markup.lower()
    for opener in _INVISIBLE_OPEN.finditer(markup):
        if opener.start() < at:
            continue
        shown.append(markup[at : opener.start()])
        close = lowered.find(f"</{opener.group(1).lower()}", opener.end())
        if close < 0:
            at = len(markup)
            break
        at = close
    shown.append(markup[at:])
    return _collapse(html.unescape(_TAG.sub(" ", " ".join(shown))))


def _blocks(markup: str, opener: re.Pattern[str]) -> Iterator[tuple[re.Match[str], str]]:
    """(opener, content) of each script element `opener` starts, content up to `</script`."""
    at, count = 0, 0
    while count < _EMBEDDED_MAX:
        found = opener.search(markup, at)
        if found is None:
            return
        close = markup.find("</script", found.end())
        if close < 0:
            return
        yield found, markup[found.end() : close]
        at, count = close, count + 1


def _collapse(text: str) -> str:
    """White space runs as one space, ends trimmed (str.split's white space is `\\s`'s)."""
    return " ".join(text.split())


def _decisive_challenge(headers: Mapping[str, str]) -> str | None:
    for vendor in VENDORS:
        for name, pattern in vendor.challenge_headers:
            value = headers.get(name)
            if value is not None and pattern.search(value):
                return vendor.name
    return None


def _challenge(view: _View, text: str) -> str | None:
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
        and view.has(_CAPTCHA_NEEDLES)
        and _CAPTCHA_WIDGET.search(markup)
        and _VERIFY_PHRASES.search(f"{title} {view.raw_title} {text}")
    ):
        return "captcha"
    if (
        len(text) < INTERSTITIAL_TEXT_MAX
        and any(_INTERSTITIAL_TITLE.search(t) for t in (title, view.raw_title) if t)
        and ("<script" in view.lowered or _names_a_vendor(headers))
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


def _lines(text: str) -> list[str]:
    return [line for raw in text.split("\n") if (line := _collapse(raw))]


def _without(text: str, words: str) -> str:
    """`text` without the lines found in `words` (a banner's or chrome's collapsed text)."""
    if not words:
        return text
    padded = f" {words} "
    kept = [raw for raw in text.split("\n") if f" {_collapse(raw)} " not in padded]
    return normalize_plain_text("\n".join(kept))


def _consent(view: _View, text: str) -> Verdict | None:
    """A consent or subscription wall (nothing kept), or an article with its banner cut out."""
    if _consent_service(view, text):
        return Verdict("", (Reason.LOGIN_REQUIRED,), "consent")
    tiny = len(text) < SHELL_TEXT_MAX  # the extractor may have dropped the wall as furniture
    lowered = text.lower()
    asked = tiny or _says_any(lowered, _ACCEPT)
    if not asked and (len(text) >= CONSENT_TEXT_MAX or not _says_any(lowered, _CONSENT)):
        return None
    banner = view.banner
    words = f" {banner} {text} ".lower()
    if not (_says_any(words, _ACCEPT) and _says_any(words, _CONSENT + _SUBSCRIBE)):
        return None
    article = _without(text, banner)
    rest = [
        line
        for line in _lines(article)
        if not _says_any(f" {line.lower()} ", _ACCEPT + _CONSENT + _SUBSCRIBE)
    ]
    if sum(len(line) for line in rest) < WALL_REST_MAX and view.offers_to_accept:
        return Verdict("", (Reason.LOGIN_REQUIRED,), "consent")
    if article != text:
        return Verdict(article, (), "banner")
    return None


def _consent_service(view: _View, text: str) -> bool:
    """Google's or Yahoo's consent interstitial: landed on their consent host, or a short
    page whose choices post there."""
    landed = view.page.redirected_to
    if landed is not None and _CONSENT_LANDING.match(urlsplit(landed).hostname or ""):
        return True
    return (
        len(text) < CONSENT_PAGE_MAX
        and view.has(("consent.", "guce."))
        and _CONSENT_FORM.search(view.markup) is not None
    )


def _says_any(lowered: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in lowered for phrase in phrases)


def _phrase(text: str) -> str:
    """`text` as the soft-404 tables hold it: lower case, words only, error affixes gone."""
    tokens = [t.replace("’", "'") for t in _TOKENS.findall(text.casefold())]
    while tokens and tokens[0] in _ERROR_AFFIXES:
        tokens.pop(0)
    while tokens and tokens[-1] in _ERROR_AFFIXES:
        tokens.pop()
    return " ".join(tokens).replace("_", " ")


def _says(candidates: list[str], phrases: frozenset[str]) -> bool:
    """True when a candidate (or one part of a title) is only one of `phrases`; for the
    not-found table, a part that is only "404" (or "Error 404") counts too."""
    for candidate in candidates:
        for part in (candidate, *_TITLE_PARTS.split(candidate)):
            core = _phrase(part)
            if core in phrases or (not core and "404" in part and phrases is NOT_FOUND_PHRASES):
                return True
    return False


# ---------------------------------------------------------------------------------------
# Sign-in pages served with 200: the page a source shows instead of its content.

_PASSWORD_INPUT = _re(r"<input\b[^>]*\btype\s*=\s*[\"']?password\b", re.IGNORECASE)
_SIGN_IN_PATH = _re(
    r"/(?:log[-_]?in|sign[-_]?in|sign[-_]?on|sign[-_]?up|register|auth(?:enticate)?|sso"
    r"|account/login|accounts/login|session/new)(?:\.\w{2,5})?(?:/|$|\?)",
    re.IGNORECASE,
)
# A title, heading or title part that is only this says the page is a sign-in form
# (observed on the scrapy/loginform captures, "Sign in · GitHub", "Customer Login"; the
# other languages are the sign-in labels of the same sites' localised versions).
SIGN_IN_PHRASES = frozenset(
    {
        "sign in", "log in", "login", "sign on", "sign up", "signin", "customer login",
        "member login", "members login", "user login", "account login", "sign in or register",
        "log in or sign up", "anmelden", "einloggen", "login anmelden", "logg inn", "logga in",
        "log ind", "inloggen", "aanmelden", "connexion", "se connecter", "identification",
        "iniciar sesión", "acceder", "accedi", "entrar", "iniciar sessão", "zaloguj się",
        "logowanie", "giriş yap", "oturum aç", "войти", "вход", "ログイン", "登录", "登入",
        "로그인", "تسجيل الدخول", "התחברות",
    }
)  # fmt: skip
SIGN_IN_PAGE_MAX = 1_500  # characters of main text a page named for signing in may hold
_PASSWORD_SCAN = 500_000  # characters of markup searched for a password input
SIGN_IN_MAX_TEXT = 600  # characters of main text below which a password form is the page
# A sign-in page's own words are labels and links ("Forgot your password?"); a paragraph
# of this many words is an article's, however short the article.
_ARTICLE_PARAGRAPH_WORDS = 20


def _sign_in(view: _View, text: str) -> bool:
    """The page is a sign-in form: it asks for a password, and a redirect landed on a
    sign-in path; or the page is named for signing in (its URL or title, with under
    1,500 characters of text: 11 of 13 real sign-in pages of the wild set were `ready`
    without this); or it asks outside the page's furniture (a sidebar login widget, a
    modal, the mobile menu: `html_main.in_furniture`) and has little else to read, none
    of it an article's paragraph. Five real articles of extraction-dev with such a
    widget and a short text were taken for sign-in pages by the rule without the last
    two conditions (bench/README.md, "Sign-in pages")."""
    if not view.has(("password",)) or not _PASSWORD_INPUT.search(view.markup[:_PASSWORD_SCAN]):
        return False
    landed = view.page.redirected_to
    if landed is not None and _SIGN_IN_PATH.search(urlsplit(landed).path) is not None:
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


def _named_for_signing_in(view: _View) -> bool:
    """The page's own URL is a sign-in path (the read asked for the sign-in page), or its
    title is only a sign-in label: no vendor markup needed, in any language of the table.
    The sign-in box may be styled as a box (`in_furniture`) and the page may hold a blurb
    of the site; an article is neither at a sign-in path nor titled so. Not the first
    heading: a login modal's "Sign in" heading comes before a Jamaica Observer article's
    own (extraction-dev)."""
    url = view.page.url
    if url is not None and _SIGN_IN_PATH.search(urlsplit(url).path) is not None:
        return True
    return _says([view.page.title or "", view.raw_title], SIGN_IN_PHRASES)


def _sent_home(view: _View, text: str) -> Verdict | None:
    """A read of a specific item redirected to its site's home page: the item is gone
    (`not_found`), whatever the home page says. Judged from the redirect chain's two ends
    (the URL asked for and where egress landed), not from the landing page's text."""
    asked, landed = view.page.asked, view.page.redirected_to
    if asked is None or landed is None:
        return None
    before, after = urlsplit(asked), urlsplit(landed)
    if _site(before.hostname) != _site(after.hostname) or _site(after.hostname) is None:
        return None
    if _HOME_PATH.match(before.path) or not _HOME_PATH.match(after.path):
        return None
    return Verdict("", (Reason.NOT_FOUND,), "redirected_home")


def _site(host: str | None) -> str | None:
    """The host without the prefixes one site serves under (`www.`, `m.`, `amp.`)."""
    if not host:
        return None
    for prefix in _SITE_PREFIXES:
        host = host.removeprefix(prefix)
    return host


def _missing(view: _View, text: str) -> Verdict | None:
    """A soft 404 (`not_found`), a framework's error page (`unavailable`) or a refusal
    naming 403 (`access_denied`) served 200."""
    if len(text) >= SOFT_404_TEXT_MAX:
        return None
    lines = _lines(text)
    candidates = [view.page.title or "", view.raw_title, view.heading, *lines[:1]]
    if _says(candidates, SERVER_ERROR_PHRASES):
        return Verdict("", (Reason.UNAVAILABLE,), "server_error")
    if _says(candidates, FORBIDDEN_PHRASES) and _STATUS_403.search(f"{view.raw_title} {text}"):
        return Verdict("", (Reason.ACCESS_DENIED,), "forbidden")
    if (
        _says(candidates, NOT_FOUND_PHRASES)
        or _WORDPRESS_404.search(view.markup)
        or (len(lines) == 1 and _EXPRESS_404.match(lines[0]))
    ):
        return Verdict("", (Reason.NOT_FOUND,), "soft_404")
    return None


def _teaser(view: _View, text: str) -> Verdict | None:
    """A subscriber article cut at its teaser: the text is kept, `source_partial`. With
    `isAccessibleForFree: false` a paywall prompt anywhere in the visible page will do;
    without it, the page must say so where the text stops (the prompt within
    `_PROMPT_SPAN` characters after the text's last words)."""
    if not text or len(text) >= TEASER_TEXT_MAX:
        return None
    shown = _visible(view.markup)
    if "isAccessibleForFree" in view.markup and _NOT_FREE.search(view.markup):
        said = _PAYWALL_PHRASES.search(shown) is not None
    else:
        said = _prompt_after(shown, text)
    return Verdict(text, (Reason.SOURCE_PARTIAL,), "teaser") if said else None


def _prompt_after(shown: str, text: str) -> bool:
    """A paywall prompt follows the text's last words in the visible page."""
    tail = _collapse(text)[-_TAIL:]
    at = shown.rfind(tail)
    if len(tail) < 20 or at < 0:
        return False
    start = at + len(tail)
    return _PAYWALL_PHRASES.search(shown, start, start + _PROMPT_SPAN) is not None


def _shell(view: _View, text: str) -> Verdict | None:
    """A page whose text is built by scripts: its embedded article, else `no_text`."""
    if len(text) >= SHELL_TEXT_MAX:
        return None
    embedded = _embedded_text(view.markup)
    if embedded is not None and len(embedded[1]) > len(text):
        return Verdict(embedded[1], (), f"embedded:{embedded[0]}")
    if not _SHELL_MARKUP.search(view.markup):
        return None
    if _without(text, view.chrome) and not _asks_for_javascript(text):
        return None  # a small page with text of its own
    return Verdict("", (), "shell")  # the reader says `metadata_only` or `no_text`


def _asks_for_javascript(text: str) -> bool:
    return "javascript" in text.lower() and len(text) < SHELL_TEXT_MAX


def _chrome(view: _View, text: str) -> Verdict | None:
    """A page whose only text is its navigation, header, footer or cookie notice."""
    if not text or len(text) >= CHROME_TEXT_MAX:
        return None
    if _without(text, view.chrome):
        return None
    return Verdict("", (), "chrome")


# ---------------------------------------------------------------------------------------
# Reading embedded data: JSON only, never a script run.


def _embedded_text(markup: str) -> tuple[str, str] | None:
    """(source, text) of the longest article body the page embeds as data, if any."""
    found: dict[str, str] = {}  # each distinct body once, with the first source naming it
    if "ld+json" in markup:
        for _, block in _blocks(markup, _LD_JSON):
            data = _loads(block)
            _collect(found, "json_ld", _article_bodies(data))
    if "__NEXT_DATA__" in markup or "__NUXT_DATA__" in markup:
        for opener, block in _blocks(markup, _SCRIPT_JSON):
            data = _loads(block)
            source = "next_data" if opener.group(1) == "__NEXT_DATA__" else "nuxt"
            _collect(found, source, _bodies(data, data))
    if "window.__" in markup:
        for index, match in enumerate(_STATE_ASSIGNMENT.finditer(markup)):
            if index >= _EMBEDDED_MAX:
                break
            data = _raw_json(markup, match.end())
            source = "nuxt" if match.group(1) == "__NUXT__" else "initial_state"
            _collect(found, source, _bodies(data, data))
    texts = [(source, _as_text(body)) for body, source in _handed_on(found)]
    texts = [(source, text) for source, text in texts if _is_prose(text)]
    return max(texts, key=lambda item: len(item[1])) if texts else None


def _collect(found: dict[str, str], source: str, bodies: Iterator[str]) -> None:
    for body in bodies:
        found.setdefault(body, source)


def _handed_on(found: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(body, source) in the order found, each body read at most once and all of them
    together cut to _EMBEDDED_CHARS_MAX characters: what the page embeds costs at most
    one reading of that many characters, however often the data repeats or refers to it."""
    left = _EMBEDDED_CHARS_MAX
    for body, source in found.items():
        if left <= 0:
            return
        yield body[:left], source
        left -= len(body)


def _loads(text: str) -> Any:
    try:
        return json.loads(text.strip().removeprefix("<!--").removesuffix("-->"), strict=False)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return None


def _raw_json(markup: str, at: int) -> Any:
    """The JSON value assigned at `at` (`{...}` or `JSON.parse("...")`), None otherwise."""
    decoder = json.JSONDecoder(strict=False)
    try:
        if markup.startswith("JSON.parse(", at):
            quoted, _ = decoder.raw_decode(markup, at + len("JSON.parse("))
            return json.loads(quoted, strict=False) if isinstance(quoted, str) else None
        if markup.startswith("{", at):
            return decoder.raw_decode(markup, at)[0]
    except (ValueError, RecursionError):
        return None
    return None  # a function call or any other script: never evaluated


def _walk(data: Any) -> Iterator[Any]:
    """Every dict and list in `data`, breadth first, at most _JSON_NODES_MAX of them."""
    queue, seen = [data], 0
    while queue and seen < _JSON_NODES_MAX:
        node = queue.pop()
        seen += 1
        if isinstance(node, dict):
            yield node
            queue.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            yield node
            queue.extend(v for v in node if isinstance(v, dict | list))


def _article_bodies(data: Any) -> Iterator[str]:
    """`articleBody` of every schema.org Article (or subtype) in a JSON-LD value."""
    for node in _walk(data):
        if not isinstance(node, dict):
            continue
        kinds = node.get("@type")
        names = kinds if isinstance(kinds, list) else [kinds]
        if any(isinstance(k, str) and k.lower() in _ARTICLE_TYPES for k in names):
            body = node.get("articleBody")
            if isinstance(body, str):
                yield body


def _bodies(data: Any, root: Any) -> Iterator[str]:
    """Plain-string values under article-body keys. Nuxt 3's payload references (values
    are indices into the payload) are resolved once per index: thousands of references
    to one large string yield it once."""
    table = root if isinstance(root, list) else None
    resolved: set[int] = set()
    for node in _walk(data):
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if not (isinstance(key, str) and key.lower() in _BODY_KEYS):
                continue
            if isinstance(value, int) and table is not None and 0 <= value < len(table):
                if value in resolved:
                    continue
                resolved.add(value)
                value = table[value]
            if isinstance(value, str):
                yield value


def _as_text(body: str) -> str:
    """An embedded body as text: HTML bodies are read by block, plain ones normalised."""
    if not _HTML_IN_TEXT.search(body):
        return normalize_plain_text(body)
    tree = LexborHTMLParser(f"<body>{body}</body>")
    blocks = [
        _collapse(node.text(deep=True, separator=" "))
        for node in tree.css("p, h1, h2, h3, h4, h5, h6, li, blockquote, pre")
    ]
    blocks = [b for b in blocks if b]
    if not blocks and tree.body is not None:
        blocks = [_collapse(tree.body.text(deep=True, separator=" "))]
    return "\n\n".join(blocks)


def _is_prose(text: str) -> bool:
    """Long enough, and words rather than a token, URL or encoded blob."""
    return len(text) >= EMBEDDED_MIN and text.count(" ") >= len(text) / 20
