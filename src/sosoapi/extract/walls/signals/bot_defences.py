"""Bot defences: each vendor's challenge and block page signals, with where each is
documented or observed (`challenge.py` judges with them)."""

from __future__ import annotations

import re
from dataclasses import dataclass


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


ANY_VALUE = re.compile(r".")
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
        challenge_headers=(("cf-mitigated", re.compile(r"challenge", re.I)),),
        # `server: cloudflare` and `cf-ray` are on every answer through Cloudflare
        # (wafw00f plugins/cloudflare.py).
        vendor_headers=(("server", re.compile(r"cloudflare", re.I)), ("cf-ray", ANY_VALUE)),
        # The managed/JS challenge's inline `window._cf_chl_opt`, its `__cf_chl_tk` form
        # action and `#challenge-form` / `#challenge-running` (not the JS-detections script
        # /cdn-cgi/challenge-platform/scripts/jsd/, which is on ordinary pages too), the
        # `cf-error-details` box of the "Attention Required" and 1020 block pages: observed
        # on served pages, and the selectors FlareSolverr (src/flaresolverr_service.py) and
        # browserless (its Cloudflare solver notes) wait on.
        markup=re.compile(
            r"window\._cf_chl_opt|__cf_chl_(?:f_)?tk="
            r"|id=[\"']?(?:challenge-(?:form|running|stage|error-text)|cf-error-details"
            r"|cf-please-wait|trk_jschal_js)\b|cf-browser-verification"
        ),
        # FlareSolverr's CHALLENGE_TITLES and ACCESS_DENIED_TITLES.
        titles=re.compile(
            r"^(?:just a moment\.*|attention required!? \| cloudflare|access denied"
            r"|one more step|please wait\.*)$",
            re.I,
        ),
        # Error 1015 "You are being rate limited" is a rate limit (retrying later helps).
        not_a_challenge=re.compile(
            r"error(?:\s+code)?:?\s*1015\b|you are being rate limited", re.I
        ),
    ),
    Vendor(
        "datadome",
        needles=("captcha-delivery.com", "var dd"),
        # `x-datadome` / `x-dd-b` are set on answers of DataDome-protected sites (observed
        # on their answers; `x-datadome: protected` on ordinary pages too).
        vendor_headers=(("x-datadome", ANY_VALUE), ("x-dd-b", ANY_VALUE)),
        # The interstitial and CAPTCHA pages load from captcha-delivery.com and carry
        # `var dd={'rt':'c'|'i',...}` (observed on served pages; captcha-delivery.com is the
        # host DataDome's docs name for its challenge pages).
        markup=re.compile(
            r"(?:geo|ct|c|i)\.captcha-delivery\.com|var\s+dd\s*=\s*\{\s*['\"]rt['\"]"
        ),
    ),
    Vendor(
        "perimeterx",
        needles=("px-captcha", "captcha.px-", "_pxcaptcha"),
        # HUMAN (PerimeterX) block page: `<div id="px-captcha">` (the element HUMAN's custom
        # block page docs tell sites to keep) and its captcha script from captcha.px-cdn.net
        # / px-cloud.net (observed);
        # not `window._pxAppId`, which the sensor snippet sets on every protected page.
        markup=re.compile(r"id=[\"']?px-captcha\b|captcha\.px-(?:cdn|cloud)\.net|_pxCaptcha"),
        titles=re.compile(r"^(?:access to this page has been denied\.?|human verification)$", re.I),
    ),
    Vendor(
        "akamai",
        needles=("edgesuite.net", "/_sec/cp_challenge/", "sec-if-cpt-container"),
        # `server: AkamaiGHost` (wafw00f plugins/kona.py).
        vendor_headers=(("server", re.compile(r"AkamaiGHost", re.I)),),
        # The edge's "Access Denied ... Reference #18.xxxx" page links errors.edgesuite.net;
        # Bot Manager's crypto challenge loads /_sec/cp_challenge/ into
        # `#sec-if-cpt-container` (observed).
        markup=re.compile(r"errors\.edgesuite\.net|/_sec/cp_challenge/|sec-if-cpt-container"),
        titles=re.compile(r"^access denied$", re.I),
    ),
    Vendor(
        "imperva",
        needles=("_incapsula_resource", "incapsula incident", "distil_r_"),
        # `x-iinfo`, `x-cdn: Incapsula|Imperva` (observed on answers through Imperva).
        vendor_headers=(("x-iinfo", ANY_VALUE), ("x-cdn", re.compile(r"incapsula|imperva", re.I))),
        # "Request unsuccessful. Incapsula incident ID" and its `/_Incapsula_Resource`
        # iframe (wafw00f plugins/incapsula.py; the resource's analytics script is on
        # ordinary protected pages too, the iframe is not); Imperva Advanced Bot Protection
        # (ex Distil) "Pardon Our Interruption" with `distil_r_` paths (wafw00f distil.py).
        markup=re.compile(
            r"<iframe\b[^>]*_Incapsula_Resource|incapsula incident id"
            r"|distil_r_(?:captcha|blocked)",
            re.I,
        ),
        titles=re.compile(r"^pardon our interruption\.*$", re.I),
    ),
    Vendor(
        "aws_waf",
        needles=("gokuprops", "awswafcookiedomainlist"),
        # `x-amzn-waf-action: challenge|captcha` on CAPTCHA (405) and Challenge (202)
        # responses (AWS WAF Developer Guide, "CAPTCHA and Challenge actions").
        challenge_headers=(("x-amzn-waf-action", re.compile(r"challenge|captcha", re.I)),),
        # The interstitial's inline `window.gokuProps` and `awsWafCookieDomainList`
        # (observed on served challenge pages; the SDK's *.token.awswaf.com script is on
        # integrated ordinary pages too).
        markup=re.compile(r"gokuProps|awsWafCookieDomainList"),
    ),
    Vendor(
        "sucuri",
        needles=("sucuri",),
        # `x-sucuri-block` is sent on blocks only; `x-sucuri-id`, `server: Sucuri/Cloudproxy`
        # on every answer (wafw00f plugins/sucuri.py).
        challenge_headers=(("x-sucuri-block", ANY_VALUE),),
        vendor_headers=(("x-sucuri-id", ANY_VALUE), ("server", re.compile(r"sucuri", re.I))),
        # Block page: cloudproxy@sucuri.net, sucuri.net/privacy-policy, its block CSS
        # (wafw00f plugins/sucuri.py); JS challenge: the `sucuri_cloudproxy_js` cookie.
        markup=re.compile(
            r"cloudproxy@sucuri\.net|sucuri\.net/privacy-policy|sucuri[-_]firewall[-_]block"
            r"|sucuri_cloudproxy_js",
            re.I,
        ),
        titles=re.compile(r"^sucuri website firewall.{0,20}access denied$", re.I),
    ),
)
