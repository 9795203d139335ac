"""Caption tracks a page offers through `<track>`, and choosing one by language.

The page is parsed by Lexbor (an HTML5-conformant parser) so that tracks are found where
browsers find them. `kind` follows the HTML enumerated-attribute rules: keywords match
ASCII case-insensitively, a missing `kind` means `subtitles`, and any other value
(including the empty string) means `metadata`, which is not a caption track.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sosoapi.extract.html_bounds import parse_html
from sosoapi.extract.html_repair import close_runaway_title
from sosoapi.extract.language import MATCH_RULES, match_language, normalize_language
from sosoapi.extract.limits import DESCRIPTION_MAX, TITLE_MAX, clean_optional
from sosoapi.extract.types import PageTracks, Track

_CAPTION_KINDS = frozenset({"captions", "subtitles"})
_TRACK_KINDS = _CAPTION_KINDS | {"descriptions", "chapters", "metadata"}
_FETCHABLE_SCHEMES = frozenset({"http", "https"})
# WHATWG URL parsing: strip leading/trailing C0 controls and space, drop every tab/newline.
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_NO_TAB_OR_NEWLINE = str.maketrans("", "", "\t\n\r")
# What stays literal when a resolved URL is made an RFC 3986 URI (existing escapes kept).
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = _PATH_SAFE + "?"
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def find_tracks(html: str, base_url: str) -> PageTracks:
    """The page's caption/subtitle tracks in document order, plus title, description, lang.

    Parsed within the bounds (extract/html_bounds.py) as a browser without scripts does:
    a `<track>` in `<noscript>` is found."""
    tree, _ = parse_html(close_runaway_title(html), scripting=False)
    base = _document_base(tree, base_url)
    tracks = tuple(t for node in tree.css("track") if (t := _track(node, base)) is not None)
    return PageTracks(
        tracks=tracks,
        title=clean_optional(_title(tree), TITLE_MAX),
        description=clean_optional(_description(tree), DESCRIPTION_MAX),
        language=normalize_language(_attr(tree.css_first("html"), "lang")),
    )


def choose_track(tracks: Sequence[Track], language: str | None) -> Track | None:
    """The asked language's track: the best rule of `match_language` wins (exact, then
    subtag prefix, then macrolanguage), then document order; with no language asked, the
    default track, else the first."""
    if language is None:
        return next((t for t in tracks if t.default), tracks[0] if tracks else None)
    matches = [
        (MATCH_RULES.index(match.by), index, track)
        for index, track in enumerate(tracks)
        if track.srclang and (match := match_language(language, track.srclang)) is not None
    ]
    return min(matches, key=lambda item: item[:2])[2] if matches else None


def _track(node: LexborNode, base: str) -> Track | None:
    kind = _track_kind(node)
    src = _resolve(base, _attr(node, "src"))
    if kind not in _CAPTION_KINDS or src is None:
        return None
    return Track(
        src=src,
        kind=kind,
        srclang=normalize_language(_attr(node, "srclang")),
        label=clean_optional(_attr(node, "label"), TITLE_MAX),
        default="default" in node.attributes,
    )


def _track_kind(node: LexborNode) -> str:
    if "kind" not in node.attributes:
        return "subtitles"
    value = (_attr(node, "kind") or "").lower()
    return value if value in _TRACK_KINDS else "metadata"


def _document_base(tree: LexborHTMLParser, page_url: str) -> str:
    """The first `<base href>` resolved against the page URL, else the page URL."""
    resolved = _resolve(page_url, _attr(tree.css_first("base[href]"), "href"), fetchable_only=False)
    return resolved or page_url


def _resolve(base: str, value: str | None, *, fetchable_only: bool = True) -> str | None:
    """`value` resolved against `base` the way a browser would, as a percent-encoded URI.

    Browsers fetch `my subs/é.vtt` as `my%20subs/%C3%A9.vtt` and read `\\` as `/` in
    http(s) URLs; the egress gate refuses raw spaces, so the encoding happens here. The
    fragment is dropped (never sent); the host is left for the gate's own IDNA parse.
    """
    if value is None:
        return None
    value = value.strip(_C0_OR_SPACE).translate(_NO_TAB_OR_NEWLINE)
    if not value:
        return None
    try:
        parts = urlsplit(urljoin(base, _forward_slashes(value)))
    except ValueError:
        return None
    if fetchable_only and parts.scheme not in _FETCHABLE_SCHEMES:
        return None
    path, query = _percent_encode(parts.path, _PATH_SAFE), _percent_encode(parts.query, _QUERY_SAFE)
    return urlunsplit((parts.scheme, parts.netloc, path, query, ""))


def _forward_slashes(value: str) -> str:
    """WHATWG: in http(s) URLs a backslash before the query is a path separator."""
    end = min((i for i in (value.find("?"), value.find("#")) if i >= 0), default=len(value))
    return value[:end].replace("\\", "/") + value[end:]


def _percent_encode(text: str, safe: str) -> str:
    return quote(_LONE_PERCENT.sub("%25", text), safe=safe)


def _title(tree: LexborHTMLParser) -> str | None:
    og = _meta_content(tree, "og:title")
    if og:
        return og
    node = tree.css_first("title")
    return node.text() if node is not None else None


def _description(tree: LexborHTMLParser) -> str | None:
    return _meta_content(tree, "description") or _meta_content(tree, "og:description")


def _meta_content(tree: LexborHTMLParser, name: str) -> str | None:
    """`content` of the first `<meta>` whose `name` or `property` is `name`, if not blank."""
    for node in tree.css("meta[content]"):
        keys = {(_attr(node, key) or "").strip().lower() for key in ("name", "property")}
        content = _attr(node, "content")
        if name in keys and content and content.strip():
            return content
    return None


def _attr(node: LexborNode | None, name: str) -> str | None:
    if node is None:
        return None
    return node.attributes.get(name)
