"""Caption tracks a page offers through `<track>`, and choosing one by language.

The page is parsed by Lexbor (an HTML5-conformant parser) so that tracks are found where
browsers find them. `kind` follows the HTML enumerated-attribute rules: keywords match
ASCII case-insensitively, a missing `kind` means `subtitles`, and any other value
(including the empty string) means `metadata`, which is not a caption track.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sosoapi.extract.language import language_matches, normalize_language
from sosoapi.extract.limits import DESCRIPTION_MAX, TITLE_MAX, clean_optional
from sosoapi.extract.types import PageTracks, Track

_CAPTION_KINDS = frozenset({"captions", "subtitles"})
_TRACK_KINDS = _CAPTION_KINDS | {"descriptions", "chapters", "metadata"}
_FETCHABLE_SCHEMES = frozenset({"http", "https"})
# HTML "strip leading and trailing ASCII whitespace" for URL attribute values.
_ASCII_WS = "\t\n\f\r "


def find_tracks(html: str, base_url: str) -> PageTracks:
    """The page's caption/subtitle tracks in document order, plus title, description, lang."""
    tree = LexborHTMLParser(html)
    base = _document_base(tree, base_url)
    tracks = tuple(t for node in tree.css("track") if (t := _track(node, base)) is not None)
    return PageTracks(
        tracks=tracks,
        title=clean_optional(_title(tree), TITLE_MAX),
        description=clean_optional(_description(tree), DESCRIPTION_MAX),
        language=normalize_language(_attr(tree.css_first("html"), "lang")),
    )


def choose_track(tracks: Sequence[Track], language: str | None) -> Track | None:
    """The asked language's track (exact, then subtag prefix); else default, else first."""
    if language is None:
        return next((t for t in tracks if t.default), tracks[0] if tracks else None)
    declared = [(t, t.srclang) for t in tracks if t.srclang]
    asked = language.lower()
    for track, srclang in declared:
        if srclang.lower() == asked:
            return track
    return next((t for t, srclang in declared if language_matches(language, srclang)), None)


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
    if value is None:
        return None
    value = value.strip(_ASCII_WS)
    if not value:
        return None
    try:
        url = urljoin(base, value)
        scheme = urlsplit(url).scheme
    except ValueError:
        return None
    if fetchable_only and scheme not in _FETCHABLE_SCHEMES:
        return None
    return url


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
