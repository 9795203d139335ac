"""A sealed corpus's bibliography: CSL-JSON (Zotero, Mendeley, pandoc) and BibTeX.

One entry per pinned revision, built from what the revision holds: its title, source URL,
when it was retrieved and, when the page declared them, the citation fields it was read
with (authors, site, dates, canonical URL), or for a PDF what its Info dictionary and XMP
say (title, authors, date, subject). Nothing is guessed: a field the source did not give
is left out, never filled from elsewhere.

Every field comes from a page nobody here wrote, so each is escaped by its format's rules:
JSON by the encoder; BibTeX text with LaTeX commands that keep braces balanced (a `}` in a
title cannot close the field and start a forged entry), names braced where a comma or an
`and` would split them, URLs percent-encoded so nothing in them is BibTeX or LaTeX syntax.
The entry's URL is the one the capture came from; the page's own canonical claim is only
a note, so a page cannot make its entry cite another site.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

# LaTeX's text commands for the characters BibTeX or LaTeX would read as syntax; `{}` ends
# each command without a space and keeps the field's braces balanced.
_BIB_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    **{c: "\\" + c for c in "%&$#_"},
}
_BIB_SPECIAL = re.compile("[" + re.escape("".join(_BIB_ESCAPES)) + "]")
# Pairs LaTeX fonts join into one glyph (`--` a dash, `''` a quote, `<<` a guillemet):
# an empty group between them keeps the characters the page wrote.
_LIGATURE = re.compile(r"([-'`<>,])(?=\1)|([!?])(?=`)")
_SPACES = re.compile(r"[\s\x00-\x1f\x7f]+")
# A name part holding these is braced whole, so BibTeX reads it as one name and one part.
_NAME_SPLITTERS = re.compile(r",|(?:^|\s)and(?:\s|$)", re.IGNORECASE)
# RFC 3986's reserved and unreserved characters; everything else is percent-encoded.
_URL_SAFE = ":/?#[]@!$&'()*+,;=~%"
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# CSL's type per evidence kind. A PDF is a `document`, CSL's type for what fits no other:
# the same reader takes papers, reports, opinions and minutes, and nothing in a PDF says
# which it is (a "report" or "article" would be a guess a citation style prints).
CSL_TYPES = {"url_text": "webpage", "published_captions": "motion_picture", "pdf_text": "document"}
BIB_TYPES = {"document": "misc"}  # any other CSL type here is an `@online` entry


def _date_parts(value: str | None) -> dict[str, list[list[int]]] | None:
    """CSL `date-parts` from an ISO date or date-time; None when it is not one."""
    if not value:
        return None
    match = re.match(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?", value)
    if match is None:
        return None
    return {"date-parts": [[int(p) for p in match.groups() if p is not None]]}


def _person(name: str) -> dict[str, str]:
    """ "Family, Given" or "Given Family" as CSL names; one word stays a literal name."""
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        if family and given:
            return {"family": family, "given": given}
        return {"literal": family or given}
    parts = name.split()
    if len(parts) < 2:
        return {"literal": name}
    return {"family": parts[-1], "given": " ".join(parts[:-1])}


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:  # a malformed authority: the entry simply has no site
        return None


def csl_item(
    item_id: str, content: dict[str, Any], citation: dict[str, Any] | None, url: str
) -> dict[str, Any]:
    """The CSL-JSON item of one revision (`content` is the stored result's JSON, `url`
    the URL its capture came from)."""
    provenance = content.get("provenance") or {}
    kind = CSL_TYPES.get(content.get("kind") or "", "webpage")
    item: dict[str, Any] = {"id": item_id, "type": kind}
    if content.get("title"):
        item["title"] = content["title"]
    if url:
        item["URL"] = url
    if kind == "document":
        _document_fields(item, content)
    else:
        _page_fields(item, citation, url)
    accessed = _date_parts(provenance.get("retrieved_at"))
    if accessed:
        item["accessed"] = accessed
    if provenance.get("language"):
        item["language"] = provenance["language"]
    return item


def _page_fields(item: dict[str, Any], citation: dict[str, Any] | None, url: str) -> None:
    """What a page declared for citing it (extract/citation.py), its host as the site."""
    fields = {k: v.get("value") for k, v in (citation or {}).items() if isinstance(v, dict)}
    canonical = fields.get("canonical_url")
    if canonical and canonical != url:
        item["note"] = f"Canonical URL declared by the page: {canonical}"
    site = fields.get("site_name") or _host(url)
    if site:
        item["container-title"] = site
    if fields.get("publisher"):
        item["publisher"] = fields["publisher"]
    authors = fields.get("authors")
    _authors(item, authors if isinstance(authors, list) else [])
    issued = _date_parts(fields.get("published"))  # CSL has no "modified": see corpus.json
    if issued:
        item["issued"] = issued


def _document_fields(item: dict[str, Any], content: dict[str, Any]) -> None:
    """What a PDF says of itself (its Info dictionary and XMP): authors, date, and its
    Subject as the abstract (XMP keeps Subject as `dc:description`). No site: a host is
    no container of a document, and the URL already names it."""
    authors = content.get("authors")
    _authors(item, authors if isinstance(authors, list) else [])
    issued = _date_parts(content.get("date"))
    if issued:
        item["issued"] = issued
    if content.get("subject"):
        item["abstract"] = content["subject"]


def _authors(item: dict[str, Any], authors: list[Any]) -> None:
    names = [str(a).strip() for a in authors]
    if any(names):
        item["author"] = [_person(name) for name in names if name]


def _bib_text(value: str) -> str:
    """Text as a BibTeX field holds it: LaTeX specials escaped, whitespace and control
    characters one space (BibTeX reads any run of whitespace as one)."""
    spaced = _SPACES.sub(" ", value).strip()
    escaped = _BIB_SPECIAL.sub(lambda m: _BIB_ESCAPES[m.group()], spaced)
    return _LIGATURE.sub(lambda m: m.group() + "{}", escaped)


def _bib_name_part(value: str) -> str:
    text = _bib_text(value)
    return "{" + text + "}" if _NAME_SPLITTERS.search(text) else text


def _bib_name(person: dict[str, str]) -> str:
    if "literal" in person:
        return "{" + _bib_text(person["literal"]) + "}"
    return f"{_bib_name_part(person['family'])}, {_bib_name_part(person['given'])}"


def bib_url(url: str) -> str:
    """A URL with nothing BibTeX or `\\url` reads as syntax: every character outside RFC
    3986's set (braces, backslash, spaces, non-ASCII) and a `%` that starts no escape are
    percent-encoded; what was already encoded stays as it was."""
    return quote(_LONE_PERCENT.sub("%25", url), safe=_URL_SAFE)


def bibtex_entry(key: str, item: dict[str, Any]) -> str:
    """One biblatex entry from a CSL item: `@online` for a page or a caption file (BibTeX
    reads it as @misc), `@misc` for a document (biblatex's type for what fits no other)."""
    lines = [f"@{BIB_TYPES.get(item['type'], 'online')}{{{key},"]

    def add(name: str, value: str | None, *, raw: bool = False) -> None:
        if value:
            lines.append(f"  {name} = {{{value if raw else _bib_text(value)}}},")

    add("title", item.get("title"))
    if item.get("author"):
        lines.append("  author = {" + " and ".join(_bib_name(a) for a in item["author"]) + "},")
    add("organization", item.get("container-title"))
    add("publisher", item.get("publisher"))
    issued = item.get("issued", {}).get("date-parts", [[]])[0]
    if issued:
        add("date", "-".join(f"{p:02d}" if i else str(p) for i, p in enumerate(issued)))
    if item.get("URL"):
        add("url", bib_url(item["URL"]), raw=True)
    accessed = item.get("accessed", {}).get("date-parts", [[]])[0]
    if accessed:
        add("urldate", "-".join(f"{p:02d}" if i else str(p) for i, p in enumerate(accessed)))
    add("langid", item.get("language"))
    add("note", item.get("note"))
    add("abstract", item.get("abstract"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def bibtex_key(evidence_id: str, revision: int) -> str:
    """A key citation managers accept (letters, digits, hyphens): stable per revision."""
    return f"sosoapi-{evidence_id.split('-')[0]}-r{revision}"


def iso(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")
