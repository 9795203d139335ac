"""A sealed corpus's bibliography: CSL-JSON (Zotero, Mendeley, pandoc) and BibTeX.

One entry per pinned revision, built from what the revision holds: its title, source URL,
when it was retrieved and, when the page declared them, the citation fields it was read
with (authors, site, dates, canonical URL). Nothing is guessed: a field the source did not
give is left out, never filled from elsewhere.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

_BIB_SPECIAL = re.compile(r"([\\{}%&$#_^~])")


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
        return {"family": family, "given": given}
    parts = name.split()
    if len(parts) < 2:
        return {"literal": name}
    return {"family": parts[-1], "given": " ".join(parts[:-1])}


def csl_item(
    item_id: str, content: dict[str, Any], citation: dict[str, Any] | None
) -> dict[str, Any]:
    """The CSL-JSON item of one revision (`content` is the stored result's JSON)."""
    provenance = content.get("provenance") or {}
    fields = {k: v.get("value") for k, v in (citation or {}).items() if isinstance(v, dict)}
    url = fields.get("canonical_url") or provenance.get("source_url")
    kind = "webpage" if content.get("kind") == "url_text" else "motion_picture"
    item: dict[str, Any] = {"id": item_id, "type": kind}
    if content.get("title"):
        item["title"] = content["title"]
    if url:
        item["URL"] = url
    site = fields.get("site_name") or (urlsplit(url).hostname if url else None)
    if site:
        item["container-title"] = site
    if fields.get("publisher"):
        item["publisher"] = fields["publisher"]
    authors = fields.get("authors")
    if isinstance(authors, list) and authors:
        item["author"] = [_person(str(a)) for a in authors]
    issued = _date_parts(fields.get("published"))  # CSL has no "modified": see corpus.json
    if issued:
        item["issued"] = issued
    accessed = _date_parts(provenance.get("retrieved_at"))
    if accessed:
        item["accessed"] = accessed
    if provenance.get("language"):
        item["language"] = provenance["language"]
    return item


def _bib_text(value: str) -> str:
    return _BIB_SPECIAL.sub(r"\\\1", value).replace("\n", " ")


def _bib_name(person: dict[str, str]) -> str:
    if "literal" in person:
        return "{" + _bib_text(person["literal"]) + "}"
    return f"{_bib_text(person['family'])}, {_bib_text(person['given'])}"


def bibtex_entry(key: str, item: dict[str, Any]) -> str:
    """One BibTeX `@online` entry (biblatex; BibTeX reads it as @misc) from a CSL item."""
    lines = [f"@online{{{key},"]

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
    add("url", item.get("URL"), raw=True)
    accessed = item.get("accessed", {}).get("date-parts", [[]])[0]
    if accessed:
        add("urldate", "-".join(f"{p:02d}" if i else str(p) for i, p in enumerate(accessed)))
    add("langid", item.get("language"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def bibtex_key(evidence_id: str, revision: int) -> str:
    """A key citation managers accept (letters, digits, hyphens): stable per revision."""
    return f"sosoapi-{evidence_id.split('-')[0]}-r{revision}"


def iso(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")
