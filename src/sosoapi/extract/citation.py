"""What a page declares for citing it: authors, site, publisher, dates, canonical URL.

Read only from markup made for it, each field with the exact tag it came from, in this
order of trust: Highwire `citation_*` meta tags (what Google Scholar and Zotero read),
JSON-LD `Article` (and its subtypes), Dublin Core (`DC.*`, `DCTERMS.*`), then OpenGraph
(`og:*`, `article:*`); the canonical URL from `<link rel="canonical">` first. Nothing is
inferred from the visible text: a field the page did not declare is absent.

Every value is third-party text bound for stored evidence, so each passes `_valid`, the
one place that holds it to the contract's bounds (extract/limits.py): text cut to
CITED_VALUE_MAX, at most CITED_NAMES_MAX authors, a URL longer than the bound dropped
(a cut URL names another page) so the next source of the field is tried, and characters
no store holds (NUL, lone surrogates from JSON escapes) replaced. JSON-LD of any depth is
read as data (extract/json_data.py).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from sosoapi.extract.charset import decode_bytes
from sosoapi.extract.html_bounds import parse_html
from sosoapi.extract.html_meta import MetaContents, meta_contents
from sosoapi.extract.json_data import load_json
from sosoapi.extract.limits import CITED_NAMES_MAX, CITED_VALUE_MAX
from sosoapi.extract.schema_org import CITED_TYPES

_SPACE = re.compile(r"\s+")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?)?)?$")

# field -> (source family, meta attribute, key) in order of trust; "json_ld" is read apart.
_META: dict[str, tuple[tuple[str, str, str], ...]] = {
    "authors": (
        ("citation_meta", "name", "citation_author"),
        ("dublin_core", "name", "dc.creator"),
        ("dublin_core", "name", "dcterms.creator"),
        ("opengraph", "property", "article:author"),
    ),
    "site_name": (
        ("citation_meta", "name", "citation_journal_title"),
        ("opengraph", "property", "og:site_name"),
    ),
    "publisher": (
        ("citation_meta", "name", "citation_publisher"),
        ("dublin_core", "name", "dc.publisher"),
        ("dublin_core", "name", "dcterms.publisher"),
    ),
    "published": (
        ("citation_meta", "name", "citation_publication_date"),
        ("citation_meta", "name", "citation_date"),
        ("citation_meta", "name", "citation_online_date"),
        ("dublin_core", "name", "dcterms.issued"),
        ("dublin_core", "name", "dc.date"),
        ("opengraph", "property", "article:published_time"),
    ),
    "modified": (
        ("dublin_core", "name", "dcterms.modified"),
        ("opengraph", "property", "article:modified_time"),
        ("opengraph", "property", "og:updated_time"),
    ),
    "canonical_url": (
        ("citation_meta", "name", "citation_public_url"),
        ("opengraph", "property", "og:url"),
    ),
}


def _collapsed(value: Any) -> str | None:
    """A string value with its white space collapsed, whole (None when blank)."""
    if not isinstance(value, str):
        return None
    text = _SPACE.sub(" ", _UNSTORABLE.sub("\ufffd", value)).strip()
    return text or None


def _clean(value: Any) -> str | None:
    """A text value as stored: collapsed and cut to the bound."""
    text = _collapsed(value)
    return text[:CITED_VALUE_MAX] if text else None


def _collapsed_contents(contents: MetaContents, kind: str, key: str) -> list[str]:
    """The `content`s of one (`name`|`property`, key), collapsed, in document order: read
    only for the keys a field names, not for every tag of the page."""
    return [text for value in contents.get((kind, key), ()) if (text := _collapsed(value))]


def _json_ld_nodes(tree: LexborHTMLParser) -> Iterator[dict[str, Any]]:
    """Every JSON-LD object of an article type (top level, in a list, or in `@graph`)."""
    for node in tree.css('script[type="application/ld+json"]'):
        data = load_json(node.text() or "")
        queue = deque(data if isinstance(data, list) else [data])  # a list's pop(0) is O(n)
        while queue:
            item = queue.popleft()
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("@graph"), list):
                queue.extend(item["@graph"])
            kinds = item.get("@type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if any(isinstance(k, str) and k.lower() in CITED_TYPES for k in kinds):
                yield item


def _names(value: Any) -> list[str]:
    """Names from a JSON-LD Person/Organization, a string, or a list of them."""
    items = value if isinstance(value, list) else [value]
    names = []
    for item in items:
        name = _clean(item.get("name") if isinstance(item, dict) else item)
        if name and not name.startswith(("http://", "https://")):
            names.append(name)
    return names


def _from_json_ld(item: dict[str, Any], field: str) -> tuple[Any, str] | None:
    """(value, key) of one field in a JSON-LD article, or None."""
    if field == "authors":
        names = _names(item.get("author"))
        return (names, "author") if names else None
    if field in ("publisher", "site_name"):
        names = _names(item.get("publisher"))
        return (names[0], "publisher") if names and field == "publisher" else None
    if field in ("published", "modified"):
        key = "datePublished" if field == "published" else "dateModified"
        value = _collapsed(item.get(key))
        return (value, key) if value else None
    main = item.get("mainEntityOfPage")
    for key, value in (("url", item.get("url")), ("mainEntityOfPage", main)):
        if isinstance(value, dict):
            value = value.get("@id")
        if _collapsed(value):
            return _collapsed(value), key
    return None


def _absolute(value: str, base: str | None) -> str | None:
    """An absolute http(s) URL within the bound, else None."""
    try:
        url = urljoin(base or "", value)
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError:  # an invalid IPv6 literal or port
        return None
    if len(url) > CITED_VALUE_MAX:
        return None
    return url if parts.scheme in ("http", "https") and hostname else None


def _valid(field: str, value: Any, base: str | None) -> Any:
    """The value in the form and within the bounds the contract allows, or None (a
    malformed date or an over-long URL is dropped)."""
    if field == "authors":
        names = [_clean(name) for name in (value if isinstance(value, list) else [value])]
        return list(dict.fromkeys(name for name in names if name))[:CITED_NAMES_MAX] or None
    if field == "canonical_url":
        return _absolute(value, base) if isinstance(value, str) else None
    value = _clean(value)
    if field in ("published", "modified"):
        return value if value and _DATE.match(value) else None
    return value


def read_citation(
    tree: LexborHTMLParser, url: str | None, contents: MetaContents
) -> dict[str, Any]:
    """{field: {"value", "source", "key"}} for each field the page declares; `contents`
    is the tree's `meta_contents`."""
    articles = list(_json_ld_nodes(tree))
    found: dict[str, Any] = {}
    link = tree.css_first('link[rel="canonical"][href]')
    if link is not None:
        href = _valid("canonical_url", link.attributes.get("href") or "", url)
        if href:
            found["canonical_url"] = {"value": href, "source": "link_canonical", "key": "canonical"}
    for field, keys in _META.items():
        if field in found:
            continue
        candidates: list[tuple[Any, str, str]] = []
        for source, kind, key in keys:
            values = _collapsed_contents(contents, kind, key)
            if values:
                value = values if field == "authors" else values[0]
                candidates.append((value, source, key))
        json_ld = next((hit for a in articles if (hit := _from_json_ld(a, field))), None)
        if json_ld is not None:  # after the citation_* tags, before the others
            at = sum(1 for c in candidates if c[1] == "citation_meta")
            candidates.insert(at, (json_ld[0], "json_ld", json_ld[1]))
        for value, source, key in candidates:
            kept = _valid(field, value, url)
            if kept:
                found[field] = {"value": kept, "source": source, "key": key}
                break
    return found


def citation_of(body: bytes, charset: str | None, url: str | None) -> dict[str, Any]:
    """The citation fields of an HTML body alone (empty when it declares none); a page read
    takes them from the document's own tree instead (extract/html.py)."""
    text = decode_bytes(body, charset, html=True)
    if not text:
        return {}
    tree = parse_html(text)[0]
    return read_citation(tree, url, meta_contents(tree))
