"""The element categories of HTML tree construction (WHATWG HTML, "Parsing HTML documents"),
as extract/html_tree.py's model reads them.

Foreign elements carry their namespace before a space (`svg title`, `math mi`: no HTML
name holds a space), and an `annotation-xml` that is an HTML integration point (its
`encoding` names HTML) is `math annotation-xml/h`; HTML elements have the bare name.
"""

from __future__ import annotations

import re

FORMATTING = frozenset(
    {"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong",
     "tt", "u"}
)  # fmt: skip
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
MATHML_TEXT = frozenset({"math mi", "math mo", "math mn", "math ms", "math mtext"})
HTML_INTEGRATION = frozenset(
    {"svg foreignobject", "svg desc", "svg title", "math annotation-xml/h"}
)
FOREIGN_BOUNDARY = MATHML_TEXT | HTML_INTEGRATION | {"math annotation-xml"}
# "has an element in scope": the walk down the stack stops at these (`select` since the
# customizable-select parser, which Lexbor follows: no "in select" insertion mode).
SCOPE = frozenset(
    {"applet", "caption", "html", "table", "td", "th", "marquee", "object", "template",
     "select"}
) | FOREIGN_BOUNDARY  # fmt: skip
SPECIAL = (
    frozenset(
        {"address", "applet", "area", "article", "aside", "base", "basefont", "bgsound",
         "blockquote", "body", "br", "button", "caption", "center", "col", "colgroup", "dd",
         "details", "dir", "div", "dl", "dt", "embed", "fieldset", "figcaption", "figure",
         "footer", "form", "frame", "frameset", "head", "header", "hgroup", "hr", "html",
         "iframe", "img", "input", "keygen", "li", "link", "listing", "main", "marquee",
         "menu", "meta", "nav", "noembed", "noframes", "noscript", "object", "ol", "p",
         "param", "plaintext", "pre", "script", "search", "section", "select", "source",
         "style", "summary", "table", "tbody", "td", "template", "textarea", "tfoot", "th",
         "thead", "title", "tr", "track", "ul", "wbr", "xmp"}
    )
    | HEADINGS
    | FOREIGN_BOUNDARY
)  # fmt: skip
IMPLIED_END = frozenset({"dd", "dt", "li", "optgroup", "option", "p", "rb", "rp", "rt", "rtc"})
IMPLIED_END_ALL = IMPLIED_END | {"caption", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"}
# Start tags that close an open `p` first, and whose end tag pops to their element.
CLOSES_P = frozenset(
    {"address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div",
     "dl", "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "main", "menu",
     "nav", "ol", "p", "search", "section", "summary", "ul"}
)  # fmt: skip
BLOCK_END = (CLOSES_P - {"p"}) | {"button", "listing", "pre"}
VOID_RECONSTRUCT = frozenset({"area", "br", "embed", "img", "keygen", "wbr", "image", "input"})
VOID_HEAD = frozenset({"base", "basefont", "bgsound", "link", "meta", "param", "source", "track"})
RAWTEXT = frozenset({"style", "noframes", "iframe", "noembed", "xmp"})
TABLE_PARTS = frozenset(
    {"caption", "col", "colgroup", "frame", "head", "tbody", "td", "tfoot", "th", "thead", "tr"}
)
CELL_ENDS = frozenset({"caption", "col", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"})
SECTIONS = frozenset({"tbody", "tfoot", "thead"})
TABLE_CURRENT = frozenset({"table", "tbody", "template", "tfoot", "thead", "tr"})
TABLE_IGNORED_ENDS = frozenset(
    {"body", "caption", "col", "colgroup", "html", "tbody", "td", "tfoot", "th", "thead", "tr"}
)
IN_HEAD_IN_TABLE = frozenset({"style", "script", "template"})
IN_HEAD = frozenset(
    {"base", "basefont", "bgsound", "link", "meta", "noframes", "script", "style", "template",
     "title"}
)  # fmt: skip
# Start tags that leave foreign content for HTML (`font` only with one of its attributes).
BREAKOUT = frozenset(
    {"b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
     "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing",
     "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong",
     "strike", "sub", "sup", "table", "tt", "u", "ul", "var"}
)  # fmt: skip
FONT_BREAKOUT = re.compile(r"(?:^|[\t\n\f\r /])(?:color|face|size)[\t\n\f\r ]*(?:[=/>]|$)", re.I)

# The doctypes that put a document in quirks mode ("The initial insertion mode"), where
# `<table>` does not close an open `<p>`.
QUIRKS_PUBLIC_EXACT = frozenset(
    {"-//w3o//dtd w3 html strict 3.0//en//", "-/w3c/dtd html 4.0 transitional/en", "html"}
)
QUIRKS_PUBLIC_PREFIXES = tuple(
    p.lower()
    for p in (
        "+//Silmaril//dtd html Pro v0r11 19970101//",
        "-//AS//DTD HTML 3.0 asWedit + extensions//",
        "-//AdvaSoft Ltd//DTD HTML 3.0 asWedit + extensions//",
        "-//IETF//DTD HTML 2.0 Level 1//", "-//IETF//DTD HTML 2.0 Level 2//",
        "-//IETF//DTD HTML 2.0 Strict Level 1//", "-//IETF//DTD HTML 2.0 Strict Level 2//",
        "-//IETF//DTD HTML 2.0 Strict//", "-//IETF//DTD HTML 2.0//",
        "-//IETF//DTD HTML 2.1E//", "-//IETF//DTD HTML 3.0//",
        "-//IETF//DTD HTML 3.2 Final//", "-//IETF//DTD HTML 3.2//", "-//IETF//DTD HTML 3//",
        "-//IETF//DTD HTML Level 0//", "-//IETF//DTD HTML Level 1//",
        "-//IETF//DTD HTML Level 2//", "-//IETF//DTD HTML Level 3//",
        "-//IETF//DTD HTML Strict Level 0//", "-//IETF//DTD HTML Strict Level 1//",
        "-//IETF//DTD HTML Strict Level 2//", "-//IETF//DTD HTML Strict Level 3//",
        "-//IETF//DTD HTML Strict//", "-//IETF//DTD HTML//",
        "-//Metrius//DTD Metrius Presentational//",
        "-//Microsoft//DTD Internet Explorer 2.0 HTML Strict//",
        "-//Microsoft//DTD Internet Explorer 2.0 HTML//",
        "-//Microsoft//DTD Internet Explorer 2.0 Tables//",
        "-//Microsoft//DTD Internet Explorer 3.0 HTML Strict//",
        "-//Microsoft//DTD Internet Explorer 3.0 HTML//",
        "-//Microsoft//DTD Internet Explorer 3.0 Tables//",
        "-//Netscape Comm. Corp.//DTD HTML//", "-//Netscape Comm. Corp.//DTD Strict HTML//",
        "-//O'Reilly and Associates//DTD HTML 2.0//",
        "-//O'Reilly and Associates//DTD HTML Extended 1.0//",
        "-//O'Reilly and Associates//DTD HTML Extended Relaxed 1.0//",
        "-//SQ//DTD HTML 2.0 HoTMetaL + extensions//",
        "-//SoftQuad Software//DTD HoTMetaL PRO 6.0::19990601::extensions to HTML 4.0//",
        "-//SoftQuad//DTD HoTMetaL PRO 4.0::19971010::extensions to HTML 4.0//",
        "-//Spyglass//DTD HTML 2.0 Extended//", "-//Sun Microsystems Corp.//DTD HotJava HTML//",
        "-//Sun Microsystems Corp.//DTD HotJava Strict HTML//",
        "-//W3C//DTD HTML 3 1995-03-24//", "-//W3C//DTD HTML 3.2 Draft//",
        "-//W3C//DTD HTML 3.2 Final//", "-//W3C//DTD HTML 3.2//",
        "-//W3C//DTD HTML 3.2S Draft//", "-//W3C//DTD HTML 4.0 Frameset//",
        "-//W3C//DTD HTML 4.0 Transitional//", "-//W3C//DTD HTML Experimental 19960712//",
        "-//W3C//DTD HTML Experimental 970421//", "-//W3C//DTD W3 HTML//",
        "-//W3O//DTD W3 HTML 3.0//", "-//WebTechs//DTD Mozilla HTML 2.0//",
        "-//WebTechs//DTD Mozilla HTML//",
    )
)  # fmt: skip
QUIRKS_PUBLIC_WITHOUT_SYSTEM = (
    "-//w3c//dtd html 4.01 frameset//",
    "-//w3c//dtd html 4.01 transitional//",
)
QUIRKS_SYSTEM = "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd"
_QUOTED = r"""("[^">]*"|'[^'>]*')"""
_DOCTYPE = re.compile(
    r"\A[\ufeff\t\n\f\r ]*(?:<!--(?:-?>|.*?--!?>)[\t\n\f\r ]*)*"
    r"<!doctype[\t\n\f\r ]*([^\t\n\f\r >]*)[\t\n\f\r ]*"
    rf"(?:(?:(public)[\t\n\f\r ]*{_QUOTED}(?:[\t\n\f\r ]*{_QUOTED})?"
    rf"|(system)[\t\n\f\r ]*{_QUOTED})[\t\n\f\r ]*)?(>)?",
    re.IGNORECASE | re.DOTALL,
)


def quirks(markup: str) -> bool:
    """Whether the document is in quirks mode ("The initial insertion mode"): its doctype
    is missing, malformed or one of the legacy ones."""
    found = _DOCTYPE.match(markup)
    if found is None or found.group(7) is None or found.group(1).lower() != "html":
        return True
    public = found.group(3)[1:-1].lower() if found.group(2) else None
    system = (found.group(4) or found.group(6) or "")[1:-1].lower() or None
    if system == QUIRKS_SYSTEM or public in QUIRKS_PUBLIC_EXACT:
        return True
    if public is None:
        return False
    return public.startswith(QUIRKS_PUBLIC_PREFIXES) or (
        system is None and public.startswith(QUIRKS_PUBLIC_WITHOUT_SYSTEM)
    )


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(name: str) -> str:
    """`name` with only its ASCII letters lowered, as the HTML tokenizer reads a tag name
    and CSS's `i` flag folds case (str.lower would fold the Kelvin sign to `k` too)."""
    return name.lower() if name.isascii() else name.translate(_ASCII_LOWER)
