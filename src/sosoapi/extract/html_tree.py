"""What an HTML5 tree builder makes of a page's tags: the elements it creates, and how deep.

A parser builds more elements than a page has tags, and deeper than its tags nest:
`<div/>` opens a `<div>` (`/>` closes only void and foreign elements); a formatting
element that a block closes is cloned again before the next text ("reconstruct the active
formatting elements": 17 KB of unclosed `<b>`s, `<i>`s and `<a>`s, then `<p>`s, make about
500,000 elements); a misnested end tag clones (the adoption agency); tables imply `tbody`
and `tr`; inside `<svg>` a `<title>` or `<style>` holds markup, not text. This model
follows WHATWG tree construction ("Parsing HTML documents", as Lexbor 2 implements it, with
the customizable-select parser) for the stack of open elements and the list of active
formatting elements (extract/html_tree_stack.py; the table modes in html_tree_tables.py),
so that the bound (extract/html_bounds.py) counts the elements the parser will really make
and how deep they nest. Where it is unsure it counts more, never fewer: the tests hold it
to Lexbor's own trees (tests/extract/test_html_tree.py).
"""

from __future__ import annotations

from sosoapi.extract.html_tree_names import (
    BLOCK_END,
    BREAKOUT,
    CLOSES_P,
    FORMATTING,
    HEADINGS,
    HTML_INTEGRATION,
    MATHML_TEXT,
    RAWTEXT,
    SPECIAL,
    TABLE_CURRENT,
    TABLE_PARTS,
    VOID_HEAD,
    VOID_RECONSTRUCT,
)  # fmt: skip
from sosoapi.extract.html_tree_stack import attributes, hidden_input
from sosoapi.extract.html_tree_tables import (
    BODY,
    COLGROUP,
    FRAMESET,
    ROW,
    SECTION,
    TABLE,
    TEMPLATE,
    TableModes,
)  # fmt: skip

_HTML_ENCODINGS = ("text/html", "application/xhtml+xml")
_OTHER, _FORMATTING, _BLOCK, _VOID, _LEAF, _HEADING, _ITEM, _RAW, _NOSCRIPT = range(9)
_TEXTAREA, _TABLE, _SPECIAL = 9, 10, 11
# The body's start tags by how they are handled; any other name is pushed as it comes.
_START = {
    **dict.fromkeys(FORMATTING, _FORMATTING), **dict.fromkeys(CLOSES_P, _BLOCK),
    **dict.fromkeys(VOID_RECONSTRUCT, _VOID), **dict.fromkeys(VOID_HEAD, _LEAF),
    **dict.fromkeys(HEADINGS, _HEADING), **dict.fromkeys(("li", "dd", "dt"), _ITEM),
    **dict.fromkeys(("pre", "listing"), _BLOCK), **dict.fromkeys(RAWTEXT, _RAW),
    "script": _RAW, "title": _RAW, "noscript": _NOSCRIPT, "textarea": _TEXTAREA, "table": _TABLE,
    **dict.fromkeys(
        ("form", "hr", "plaintext", "template", "rb", "rtc", "rp", "rt", "html", "body", "head",
         "button", "select", "option", "optgroup", "math", "svg", "applet", "marquee",
         "object", "frameset", *TABLE_PARTS),
        _SPECIAL,
    ),
}  # fmt: skip
# The start tags after which a `<frameset>` no longer replaces the body (non-blank text too).
_FRAMESET_NOT_OK = frozenset(
    {"applet", "marquee", "object", "area", "br", "embed", "img", "keygen", "wbr", "image",
     "input", "li", "dd", "dt", "pre", "listing", "button", "table", "hr", "textarea", "xmp",
     "iframe", "select", "body", "template", "frameset"}
)  # fmt: skip
_END = {
    **dict.fromkeys(FORMATTING, _FORMATTING), **dict.fromkeys(HEADINGS, _HEADING),
    **dict.fromkeys((*BLOCK_END, "dd", "dt", "li", "applet", "marquee", "object"), _BLOCK),
    **dict.fromkeys(("p", "select", "form", "br", "template", "body", "html"), _SPECIAL),
}  # fmt: skip

# The end tags that do more than pop the current node when they name it: the formatting
# elements' (the list), those that clear to a marker, `</form>` (its pointer), `</br>` (an
# element), `</template>` (a mode) and `</body>`, `</html>` (ignored).
_KEEPS_CURRENT = FORMATTING | {"applet", "marquee", "object", "form", "br", "template", "body",
                               "html"}  # fmt: skip


def _foreign(name: str) -> bool:
    """A foreign element where tokens follow the foreign-content rules."""
    return " " in name and name not in MATHML_TEXT and name not in HTML_INTEGRATION


class TreeModel(TableModes):
    """The tree builder as a page's tokens arrive (`text`, `start`, `end`, and `raw_end`
    after a raw-text element's content)."""

    __slots__ = ("frameset_ok", "quirks", "scripting")

    def __init__(self, *, scripting: bool, quirks: bool) -> None:
        super().__init__()
        self.scripting, self.quirks = scripting, quirks
        self.frameset_ok = True  # a `<frameset>` may still replace the body
        self._push("html")
        self._push("body")
        self.nodes = 3  # html, head, body

    def text(self, blank: bool) -> None:
        """A run of text outside raw-text elements (`blank`: white space only; read only
        in the table modes)."""
        current = self.stack[-1]
        if " " in current and _foreign(current):
            self.frameset_ok = self.frameset_ok and blank
            return
        mode = self.mode
        if mode in (TABLE, SECTION, ROW):
            if blank and current in TABLE_CURRENT:
                return
        elif mode == COLGROUP:
            if blank or current != "colgroup":
                return
            self._pop()
            self.mode = TABLE
        elif mode >= FRAMESET:
            return
        if not blank:
            self.frameset_ok = False
        active = self.active
        if active and (last := active[-1]) is not None and last.at < 0:
            self._reconstruct()

    def start(self, name: str, attrs: str, closed: bool) -> str | None:
        """A start tag (`closed`: it ends in `/>`). Returns the name of the raw-text
        element it opens (its content is text up to its end tag), if it opens one."""
        current = self.stack[-1]
        if " " not in current:
            if self.mode == BODY:
                return self._body_start(name, attrs, closed)
            return self._mode_start(name, attrs, closed)
        if not (
            current in HTML_INTEGRATION
            or (current in MATHML_TEXT and name != "mglyph" and name != "malignmark")
            or (current == "math annotation-xml" and name == "svg")
        ):
            return self._foreign_start(name, attrs, closed)
        return self._mode_start(name, attrs, closed)

    def end(self, name: str) -> None:
        if self.stack[-1] == name and self.mode == BODY:  # the current node's end tag
            if name not in _KEEPS_CURRENT:
                self._pop()  # what "in body" comes to for these names
            elif name in FORMATTING:
                self._adopt(name)
            else:
                self._body_end(name)
        elif " " in self.stack[-1]:
            self._foreign_end(name)
        elif self.mode == BODY:
            self._body_end(name)
        else:
            self._mode_end(name)

    def raw_end(self, name: str, text: bool) -> None:
        """The end of a raw-text element's content (`text`: it held some). Lexbor reads a
        `<textarea>`'s text as the body's, reconstructing formatting elements inside it."""
        if name == "textarea":
            if text:
                self._reconstruct()
            self._pop_until("textarea")

    def _foreign_start(self, name: str, attrs: str, closed: bool) -> str | None:
        if name in BREAKOUT or (
            name == "font" and any(k in ("color", "face", "size") for k, _ in attributes(attrs))
        ):
            while _foreign(self.stack[-1]):
                self._pop()
            return self._mode_start(name, attrs, closed)
        qualified = f"{self.stack[-1].split(' ', 1)[0]} {name}"
        if qualified == "math annotation-xml" and any(
            k == "encoding" and v.lower() in _HTML_ENCODINGS for k, v in attributes(attrs)
        ):
            qualified += "/h"
        if closed:
            self._leaf()
        else:
            self._push(qualified)
        return None

    def _foreign_end(self, name: str) -> None:
        stack = self.stack
        if name == "br" or name == "p":
            while _foreign(stack[-1]):
                self._pop()
            self._mode_end(name)
            return
        for k in range(len(stack) - 1, 1, -1):
            self.steps += 1
            node = stack[k]
            if " " not in node:
                self._mode_end(name)
                return
            if node.split(" ", 1)[1].removesuffix("/h") == name:
                self._pop_to(k)
                return

    def _body_start(self, name: str, attrs: str, closed: bool) -> str | None:
        if self.frameset_ok and name in _FRAMESET_NOT_OK:
            if name == "frameset":
                self._frameset()
                return None
            if name != "input" or not hidden_input(attrs):
                self.frameset_ok = False
        kind = _START.get(name, _OTHER)
        if kind == _OTHER:
            active = self.active
            if active and (last := active[-1]) is not None and last.at < 0:
                self._reconstruct()
            self._push(name)
        elif kind == _FORMATTING:
            self._formatting_start(name, attrs)
        elif kind == _BLOCK:
            self._close_p()
            self._push(name)
        elif kind == _VOID:
            if name == "input" and self._in("select", self.scope):
                self._pop_until("select")
            self._reconstruct()
            self._leaf()
        elif kind == _LEAF:
            self._leaf()
        elif kind == _HEADING:
            self._close_p()
            if self.stack[-1] in HEADINGS:
                self._pop()
            self._push(name)
        elif kind == _ITEM:
            self._list_item(name)
        elif kind == _RAW or (kind == _NOSCRIPT and self.scripting):
            if name == "xmp":
                self._close_p()
                self._reconstruct()
            self._leaf()
            return name
        elif kind == _TEXTAREA:
            self._push(name)
            return name
        elif kind == _TABLE:
            if not self.quirks:
                self._close_p()
            self._push("table")
            self.mode = TABLE
        else:
            return self._body_other(name, closed)
        return None

    def _frameset(self) -> None:
        """A `<frameset>` before any content replaces the body: frames only from here on."""
        self._pop_to(2)
        self._push("frameset")
        self.mode = FRAMESET

    def _body_other(self, name: str, closed: bool) -> str | None:
        if name == "form":
            if self.form and not self.where.get("template"):
                return None
            self._close_p()
            self._push("form")
            if not self.where.get("template"):
                self.form, self.form_at = True, len(self.stack) - 1
        elif name == "hr":
            self._close_p()
            if self._in("select", self.scope):
                self._implied()
            self._leaf()
        elif name == "plaintext":
            self._close_p()
            self._push(name)
            return name
        elif name in TABLE_PARTS or name in ("html", "body", "head", "frameset"):
            return None  # ignored in the body (a frameset too, once content came)
        elif name == "template":
            self._push(name)
            self.active.append(None)
            self.templates.append(TEMPLATE)
            self.mode = TEMPLATE
        elif name in ("rb", "rtc", "rp", "rt"):
            if self._in("ruby", self.scope):
                self._implied("rtc" if name in ("rp", "rt") else "")
            self._push(name)
        else:
            self._inline(name, closed)
        return None

    def _inline(self, name: str, closed: bool) -> None:
        """The start tags that reconstruct the formatting elements before they open."""
        if name == "button":
            if self._in("button", self.scope):
                self._implied()
                self._pop_until("button")
        elif name == "select":
            if self._in("select", self.scope):
                self._pop_until("select")
                return
        elif name == "option" or name == "optgroup":
            if self._in("select", self.scope):
                self._implied("optgroup" if name == "option" else "")
            elif self.stack[-1] == "option":
                self._pop()
        self._reconstruct()
        if name == "math" or name == "svg":
            if closed:
                self._leaf()
            else:
                self._push(f"{name} {name}")
            return
        self._push(name)
        if name in ("applet", "marquee", "object"):
            self.active.append(None)

    def _formatting_start(self, name: str, attrs: str) -> None:
        if name == "a":
            index = self._last("a")
            if index >= 0:
                found = self.active[index]
                assert found is not None
                self._adopt("a", end_tag=False)  # Lexbor runs no end-tag steps after it
                if found.listed:
                    self._unlist(found)
                if found.at >= 0:
                    self._remove(found.at)
        elif name == "nobr":
            self._reconstruct()
            if self._in("nobr", self.scope):
                self._adopt("nobr")
        self._reconstruct()
        self._formatting(name, attrs)

    def _list_item(self, name: str) -> None:
        stack, names = self.stack, ("li",) if name == "li" else ("dd", "dt")
        for k in range(len(stack) - 1, 1, -1):
            self.steps += 1
            node = stack[k]
            if node in names:
                self._implied(node)
                self._pop_until(node)
                break
            if node in SPECIAL and node not in ("address", "div", "p"):
                break
        self._close_p()
        self._push(name)

    def _body_end(self, name: str) -> None:
        kind = _END.get(name, _OTHER)
        if kind == _OTHER:
            if self.stack[-1] == name:
                self._pop()
            else:
                self._any_end(name)
        elif kind == _FORMATTING:
            self._adopt(name)
        elif kind == _BLOCK:
            if self._in(name, self.items if name == "li" else self.scope):
                self._implied(name)
                self._pop_until(name)
                if name in ("applet", "marquee", "object"):
                    self._clear_to_marker()
        elif name == "p":
            if not self._in("p", self.button):
                self._push("p")
            self._close_p()
        elif kind == _HEADING:
            if any(self._in(h, self.scope) for h in HEADINGS):
                self._implied()
                while self._pop() not in HEADINGS:
                    pass
        elif name == "select":
            if self._in("select", self.scope):
                self._pop_until("select")
        elif name == "form":
            self._form_end()
        elif name == "br":
            self._reconstruct()
            self._leaf()
            self.frameset_ok = False
        elif name == "template" and self.where.get("template"):
            self._implied(thoroughly=True)
            self._pop_until("template")
            self._clear_to_marker()
            self.templates.pop()
            self._reset()

    def _form_end(self) -> None:
        if self.where.get("template"):
            if self._in("form", self.scope):
                self._implied()
                self._pop_until("form")
            return
        at = self.form_at if self.form else -1
        self.form = False
        if at < 0 or self.scope[-1] > at:
            return
        self._implied()
        self._remove(at)
