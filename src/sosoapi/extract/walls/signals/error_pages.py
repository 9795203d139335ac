"""Error pages of web servers and frameworks served with 200, and the home page a
removed item is sent to: what `soft_404.py` and `redirected_home.py` judge with."""

from __future__ import annotations

import re

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
_STATUS_403 = re.compile(r"\b403\b")
# Tokens a missing page puts around its message ("Error 404 - ...", "Oops! ...").
ERROR_AFFIXES = frozenset(
    {"404", "410", "500", "502", "503", "error", "fehler", "feil", "خطأ", "oops", "hoppla",
     "ups", "sorry", "beklager", "entschuldigung", "عذرا", "عذرًا", "عذراً", "http", "status"}
)  # fmt: skip
TITLE_PARTS = re.compile(r"\s+[|–—·»]\s+|\s+-{1,2}\s+|\s+::\s+|\s*\|\s*")
WORD_TOKENS = re.compile(r"[\w'’]+")
# WordPress marks its 404 template on <body> (`error404`, WordPress body_class docs).
WORDPRESS_404 = re.compile(r"<body\b[^<>]{0,500}?\bclass=[\"'][^\"'<>]{0,500}?\berror404\b", re.I)
# Express's default 404 is one line: `Cannot GET /path` (observed).
EXPRESS_404 = re.compile(r"^Cannot (?:GET|POST|HEAD) /\S*$")
# A site's home page, where sites send the reader of a removed item: `/`, an index file,
# `/home`, or a language's root (`/en/`, `/pt-br`). Observed: gone videos and articles
# redirected to the site's front page (issue 38).
HOME_PATH = re.compile(r"^(?:/?|/index\.\w{2,5}|/home/?|/[a-z]{2}(?:[-_][a-z]{2})?/?)$", re.I)
SITE_PREFIXES = ("www.", "m.", "amp.")
