"""Furniture that reads like prose: closing calls to action, photo credits, date lines.

Link and block rules keep these (they are short unlinked sentences inside the container),
and trafilatura keeps them too, so they run last, on the chosen text of either:
- a call to action among the last few paragraphs ("Subscribe now", "Follow us on
  Telegram", "Download our app", "Sign up for the newsletter", a paywall's "Pour lire la
  suite, créez votre compte"); a long paragraph is kept, since an article may well be
  about newsletters or apps;
- a short photo or image credit anywhere ("(Foto: Getty)", "Photograph by ...", "© AFP");
- a short line among the first few that is a date with a month name ("7. oktober 2020",
  "Stand: 05. Februar 2020"): the dateline, which numeric-date rules do not catch;
- a short label that opens a list of other stories ("Mehr zum Thema", "Read more: ...",
  "See also", "Next article"), anywhere;
- a short affiliate-link or embed-consent notice anywhere ("Für Links auf dieser Seite
  erhält ... eine Provision", "we may earn a commission", "ohne dein Einverständnis");
- a short rating, share, comment or reading-time label anywhere ("War der Artikel
  nützlich?", "Share this article", "Keine Kommentare", "Lesezeit: 3 Minuten");
- a short "about the author" label among the last few paragraphs ("Über Luis Holuch",
  "Autoreninfo", "About the author"): it and the author's bio after it are cut.
The constants were chosen on the even half of the extraction-dev set; bench/README.md has
the figures on both halves.
"""

from __future__ import annotations

import re

_LAST_PARAGRAPHS = 5
_CALL_MAX_CHARS = 250
_CALL = re.compile(
    r"subscri|abonnier|newsletter|telegram|whatsapp|follow us|folgen sie|s[ií]guenos"
    r"|suscr[ií]b|download the|app for|our app|sign up|anmelden|registrier|únete|join us"
    r"|support our|unterstützen sie|unterstütze uns|unterstützt uns|if you (?:enjoyed|liked)"
    r"|lesen oder verschenken|lust auf mehr"
    r"|subskryp|abonnez|lire la suite|stay up.to.date|get the latest|straight to your",
    re.IGNORECASE,
)
_CREDIT_MAX_CHARS = 120
_CREDIT = re.compile(
    r"\((?:foto|photo|bild|credit|image|fotos?)\s*:|^(?:foto|photo|bild|credit|image|quelle"
    r"|source|fuente)\s*:|©|\bphotograph by\b|\bfoto:\s",
    re.IGNORECASE,
)
_MORE_MAX_CHARS = 80
_MORE = re.compile(
    r"^(?:mehr zu|weitere|related|read more|more from|more on|lesen sie auch|siehe auch"
    r"|see also|m[aá]s noticias|leer m[aá]s|lire aussi|czytaj (?:też|także)|also read"
    r"|you may also|das könnte|contexto de|vorschau auf|n[aä]chste[rnm]? (?:artikel|beitrag)"
    r"|next (?:article|post|story)|previous (?:article|post|story)"
    r"|vorherige[rnm]? (?:artikel|beitrag))",
    re.IGNORECASE,
)
_NOTICE_MAX_CHARS = 250
_NOTICE = re.compile(
    r"affiliate|earn a commission|provision vom|erhält .{0,40}provision|partnerlinks?\b"
    r"|werbelinks?\b|enlaces de afiliado|ohne dein einverständnis|ohne ihr einverständnis"
    r"|externe inhalte|external content|you agree to|stimmen sie zu|datenschutzerklärung",
    re.IGNORECASE,
)
_WIDGET = re.compile(
    r"^(?:war (?:der|dieser) (?:artikel|beitrag) (?:nützlich|hilfreich)"
    r"|was this (?:article|page|post) helpful|share this (?:article|post|story)"
    r"|(?:möchten sie )?(?:den|diesen) (?:artikel|beitrag) teilen"
    r"|keine kommentare|no comments|(?:artikel |beitrag )?bewerten:?$|rate this|loading\.\.\.$"
    r"|ten tekst przeczytasz|lesezeit|reading time|\d+ min(?:ute)?s? read|tiempo de lectura"
    r"|temps de lecture|leestijd)",
    re.IGNORECASE,
)
_BIO_PARAGRAPHS = 6
_BIO_MAX_CHARS = 60
_BIO = re.compile(
    r"^(?:über (?:den |die )?(?:autor|autorin|[A-ZÄÖÜ]\w+ [A-ZÄÖÜ]\w+)|about the author"
    r"|about [A-Z]\w+ [A-Z]\w+$|autoreninfo|zur person|sobre el autor|sobre la autora"
    r"|o autorze|à propos de l.auteur|the author)",
    re.IGNORECASE,
)
_FIRST_PARAGRAPHS = 3
_DATE_MAX_CHARS = 40
_MONTHS = (
    r"jan|feb|mär|mar|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[cz]|janv|févr|avr|juil|août"
    r"|déc|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre"
    r"|diciembre|stycz|lut|kwiet|maj|czerw|lip|sierp|wrze|paźdz|listop|grud"
)
_DATE = re.compile(
    rf"\b\d{{1,2}}\.?\s+(?:{_MONTHS})\w*\.?\s+\d{{4}}\b"
    rf"|\b(?:{_MONTHS})\w*\.?\s+\d{{1,2}},?\s+\d{{4}}\b",
    re.IGNORECASE,
)


def drop_furniture_lines(text: str) -> str:
    """`text` (paragraphs apart by blank lines) without the furniture lines above."""
    lines = _cut_author_bio(text.split("\n"))
    filled = [i for i, line in enumerate(lines) if line.strip()]
    dropped = {i for i in filled if _is_furniture(lines[i].strip(), filled, i)}
    if len(dropped) == len(filled):
        return text
    kept = [line for i, line in enumerate(lines) if i not in dropped]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")


def _cut_author_bio(lines: list[str]) -> list[str]:
    """The lines before an "about the author" label among the last few paragraphs."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    for at in filled[1:][-_BIO_PARAGRAPHS:]:
        line = lines[at].strip()
        if len(line) <= _BIO_MAX_CHARS and _BIO.search(line):
            return lines[:at]
    return lines


def _is_furniture(line: str, filled: list[int], at: int) -> bool:
    if len(line) <= _CREDIT_MAX_CHARS and _CREDIT.search(line):
        return True
    if len(line) <= _MORE_MAX_CHARS and _MORE.search(line):
        return True
    if len(line) <= _NOTICE_MAX_CHARS and _NOTICE.search(line):
        return True
    if len(line) <= _MORE_MAX_CHARS and _WIDGET.search(line):
        return True
    if at in filled[-_LAST_PARAGRAPHS:] and len(line) <= _CALL_MAX_CHARS and _CALL.search(line):
        return True
    return (
        at in filled[:_FIRST_PARAGRAPHS]
        and len(line) <= _DATE_MAX_CHARS
        and bool(_DATE.search(line))
    )
