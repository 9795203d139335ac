"""Title, description and publisher-declared language of a parsed HTML document."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sosoapi.extract.language import normalize_language
from sosoapi.extract.limits import DESCRIPTION_MAX, TITLE_MAX, clean_optional

# Separators sites put between a page title and their own name.
_TITLE_SEPARATOR = re.compile(r"\s+(?:[|·•»«:~/]|::|-{1,2}|–|—)\s+")
_NOT_ALNUM = re.compile(r"[\W_]+")
_HOST_NOISE = frozenset({"www", "m", "amp", "mobile", "blog", "blogs", "news"})
_TITLE_KEYS = (("property", "og:title"), ("name", "og:title"))
_DESCRIPTION_KEYS = (
    ("name", "description"),
    ("property", "og:description"),
    ("name", "og:description"),
    ("name", "twitter:description"),
    ("property", "twitter:description"),
)
_SITE_NAME_KEYS = (("property", "og:site_name"), ("name", "application-name"))


# Every non-blank `content` of a page's `<meta>` tags by (attribute, lower-case key).
MetaContents = dict[tuple[str, str], list[str]]


@dataclass(frozen=True, slots=True)
class PageMetadata:
    title: str | None
    description: str | None
    language: str | None


def read_metadata(
    tree: LexborHTMLParser,
    contents: MetaContents,
    *,
    content_language: str | None,
    url: str | None,
) -> PageMetadata:
    """Metadata as the publisher declared it, each field within the contract's bounds;
    `contents` is the tree's `meta_contents`, read once for this and the citation."""
    metas = {key: values[0] for key, values in contents.items()}  # the first of each key
    return PageMetadata(
        title=clean_optional(_title(tree, metas, url), TITLE_MAX),
        description=clean_optional(_first(metas, _DESCRIPTION_KEYS), DESCRIPTION_MAX),
        language=declared_language(tree, metas, content_language),
    )


def meta_contents(tree: LexborHTMLParser) -> MetaContents:
    """Every non-blank `content` by (`name`|`property`|`http-equiv`|`itemprop`, lower-case
    key), in document order: the one reading of a page's `<meta>` tags (its metadata here,
    its citation in citation.py)."""
    table: MetaContents = {}
    for node in tree.tags("meta"):
        attrs = node.attributes
        content = attrs.get("content")
        if not content or not content.strip():
            continue
        for kind in ("property", "name", "http-equiv", "itemprop"):
            key = attrs.get(kind)
            if key:
                table.setdefault((kind, key.strip().lower()), []).append(content)
    return table


def _first(metas: dict[tuple[str, str], str], keys: tuple[tuple[str, str], ...]) -> str | None:
    for key in keys:
        value = metas.get(key)
        if value and value.strip():
            return value
    return None


def declared_language(
    tree: LexborHTMLParser, metas: dict[tuple[str, str], str], content_language: str | None
) -> str | None:
    """`<html lang>`, `xml:lang`, `<meta http-equiv=content-language>`, then the header."""
    root = tree.root
    attrs = root.attributes if root is not None and root.tag == "html" else {}
    for raw in (
        attrs.get("lang"),
        attrs.get("xml:lang"),
        metas.get(("http-equiv", "content-language")),
        content_language,
    ):
        if raw and raw.strip():
            tag = normalize_language(raw)
            if tag is not None:
                return tag
    return None


def _title(
    tree: LexborHTMLParser, metas: dict[tuple[str, str], str], url: str | None
) -> str | None:
    raw = _first(metas, _TITLE_KEYS) or _element_text(tree, "title") or _element_text(tree, "h1")
    if raw is None:
        return None
    return strip_site_name(" ".join(raw.split()), _site_names(metas, url))


def _element_text(tree: LexborHTMLParser, tag: str) -> str | None:
    node: LexborNode | None = tree.css_first(tag)
    if node is None:
        return None
    text = node.text(deep=True, separator=" ")
    return text if text.strip() else None


def _site_names(metas: dict[tuple[str, str], str], url: str | None) -> set[str]:
    names = {_key(value) for key in _SITE_NAME_KEYS if (value := metas.get(key))}
    host = urlsplit(url).hostname if url else None
    if host:
        labels = [label for label in host.lower().split(".") if label not in _HOST_NOISE]
        if len(labels) >= 2:
            names.add(_key(labels[-2] if len(labels[-1]) <= 3 else labels[-1]))
            names.add(_key("".join(labels[:-1])))
    return {name for name in names if len(name) >= 3}


def _key(text: str) -> str:
    return _NOT_ALNUM.sub("", text.lower())


def strip_site_name(title: str, site_names: set[str]) -> str:
    """Drop a leading or trailing `| Site Name` part when it names the site.

    Only a part that matches the site name or the host is dropped, and never the last
    remaining part, so a title that merely contains a separator is kept whole.
    """
    parts = _TITLE_SEPARATOR.split(title)
    if len(parts) < 2 or not site_names:
        return title
    seps = _TITLE_SEPARATOR.findall(title)
    if _names_site(parts[-1], site_names):
        return title[: len(title) - len(parts[-1]) - len(seps[-1])]
    if _names_site(parts[0], site_names):
        return title[len(parts[0]) + len(seps[0]) :]
    return title


def _names_site(part: str, site_names: set[str]) -> bool:
    key = _key(part)
    if not key or len(part) > 60:
        return False
    return any(key == name or name in key or key in name for name in site_names)
