"""The one home of HTML parsing: every page, caption page and embedded HTML body is bounded
here (before a parser sees it, or in a parsing worker by Lexbor's own parse under a CPU
budget, below), and Lexbor builds its tree only here (`BoundedMarkup.parse`; trafilatura's
lxml takes a `BoundedMarkup` too). docs/architecture.md, "extract/".

HTML5 tree construction is quadratic in nesting depth (scope checks walk the stack of open
elements) and in the number of distinct attributes on one tag (duplicate checks), and it
makes more elements than a page has tags. Measured with Lexbor: 100,000 nested `<div>`
take 16 s, one tag with 200,000 distinct attributes 150 s, and 29 KB of unclosed
formatting elements then paragraphs 3.8 s and 1.4 GB (4,000,000 elements). This scan
tokenizes as the HTML tokenizer does (a quoted `>` does not end a tag; raw text ends at its
own end tag, script data with its escapes; CDATA only in foreign content) and feeds the
tokens to a model of the tree builder (extract/html_tree.py). It cuts the markup before
the token that would make the tree pass `MAX_NODES` elements, `MAX_DEPTH` open elements or
`MAX_STEPS` steps of the builder's own work, and strips the attributes of a tag that has
more than `MAX_ATTRIBUTES`; a cut page reads `nodes_limited`. Linear in the input.

In a parsing worker that may be killed (extract/lexbor_budget.py), Lexbor parses first,
under a CPU budget, and the model runs only where that tree passes the element or depth
bound (it is then cut as above) or the parse passed its budget (the worker dies, and the
job runs again with the model first). A tree within the bounds is the one the model would
have let through, so both ways read a page alike, but for two guards only the model keeps:
a tag's attributes past `MAX_ATTRIBUTES` and the builder's work bound, both there for the
cost of a parse that Lexbor here finished within its budget. Lexbor's own parse is held
by the worker's memory cap as well: one that cannot allocate is read by the model.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from sosoapi.extract import lexbor_budget
from sosoapi.extract.html_tree import TreeModel
from sosoapi.extract.html_tree_names import ascii_lower, quirks
from sosoapi.extract.html_tree_stack import ATTRIBUTE
from sosoapi.extract.html_tree_tables import BODY, COLGROUP, ROW, SECTION, TABLE

MAX_NODES = 60_000
MAX_DEPTH = 1_000
MAX_ATTRIBUTES = 64
# The builder's work: tokens, elements pushed and popped, list and stack walks. A page at
# the node bound takes about 3 per element; only a quadratic one comes near this.
MAX_STEPS = 20 * MAX_NODES

_TOKEN = re.compile(
    r"<(?:!--(?:-?>|.*?--!?>|.*)"
    r"|(?P<end>/)?(?P<name>[A-Za-z][^\t\n\f\r />]*)"
    r"(?P<attrs>(?:[\t\n\f\r ]+|/(?!>)|[^\t\n\f\r />][^\t\n\f\r />=]*"
    r"""(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?>"[^"]*"?|'[^']*'?|[^\t\n\f\r >]*))?)*+)(?P<close>/?>)?"""
    r"|(?P<cdata>!\[CDATA\[)|[!?][^>]*>?|/(?:>|[^>]+>?))",
    re.DOTALL,
)
_TEXT = re.compile(r"[^\x00]")
_NOT_BLANK = re.compile(r"[^\t\n\f\r \x00]")
_TABLE_MODES = (TABLE, SECTION, ROW, COLGROUP)  # where blank text is not text
_ATTRIBUTE_AFTER = re.compile(r"[\t\n\f\r /\"']")
_ENDS_NAME = frozenset("\t\n\f\r />")
_SCRIPT_ESCAPED = re.compile(r"-->|</script[\t\n\f\r />]|<script[\t\n\f\r />]", re.IGNORECASE)
_SCRIPT_DOUBLE = re.compile(r"-->|</script[\t\n\f\r />]", re.IGNORECASE)
# An element more than MAX_DEPTH deep: Lexbor matches it from the element up, so the
# search costs the tree's summed depth, not its width times this selector.
_TOO_DEEP = " > ".join(["*"] * (MAX_DEPTH + 1))


@dataclass(frozen=True, slots=True)
class BoundedMarkup:
    """Markup within the bounds, whether a bound cut it, and the scripting flag it was
    bounded for (`<noscript>` is text with scripting, markup without). `built` holds the
    tree the bound check already parsed, for the first `parse` to take."""

    markup: str
    nodes_limited: bool
    scripting: bool = True
    built: list[LexborHTMLParser] = field(default_factory=list, compare=False, repr=False)

    def parse(self) -> LexborHTMLParser:
        """The one place a page's markup becomes a tree: a fresh one for each caller, as
        the extractor edits its own."""
        if self.built:
            return self.built.pop()
        with lexbor_budget.armed():
            return LexborHTMLParser(self.markup, scripting=self.scripting)


def bound_markup(markup: str, *, scripting: bool = True) -> BoundedMarkup:
    """`markup` cut at the node, depth or work bound, oversized attribute lists stripped;
    where Lexbor may try first, its tree when that is within the element and depth bound."""
    if lexbor_budget.allowed():
        tree = _tree_within_bounds(markup, scripting)
        if tree is not None:
            return BoundedMarkup(markup, False, scripting, [tree])
    return _Scan(markup, scripting).run()


def _tree_within_bounds(markup: str, scripting: bool) -> LexborHTMLParser | None:
    """Lexbor's tree of `markup` if it has at most `MAX_NODES` elements, none deeper than
    `MAX_DEPTH` (None: the model must cut it). The parse and the count run under the CPU
    budget: a page deep enough to make the count slow made the parse slow too."""
    with lexbor_budget.armed():
        try:
            tree = LexborHTMLParser(markup, scripting=scripting)
        except SelectolaxError:  # it could not allocate: past the memory cap
            return None
        root = tree.root
        if root is None:
            return tree
        elements = sum(1 for _ in itertools.islice(root.traverse(), MAX_NODES + 1))
        if elements > MAX_NODES or (elements > MAX_DEPTH and tree.css_first(_TOO_DEEP)):
            return None
    return tree


def parse_html(markup: str, *, scripting: bool = True) -> tuple[LexborHTMLParser, BoundedMarkup]:
    """The tree of `markup` within the bounds, and the bounded markup it was parsed from."""
    bounded = bound_markup(markup, scripting=scripting)
    return bounded.parse(), bounded


class _Scan:
    """One pass over the markup: tokens to the model, pieces of markup kept."""

    def __init__(self, markup: str, scripting: bool) -> None:
        self.markup, self.scripting = markup, scripting
        self.model = TreeModel(scripting=scripting, quirks=quirks(markup))
        self.pieces: list[str] = []
        self.kept = 0

    def run(self) -> BoundedMarkup:
        markup, model, length = self.markup, self.model, len(self.markup)
        stack, active = model.stack, model.active
        names: dict[str, str] = {}  # tag names as written, lowered
        nul = "\x00" in markup
        pos = 0
        while pos < length:
            resync = False
            for found in _TOKEN.finditer(markup, pos):
                start, end_at = found.span()
                if start > pos and (not nul or _TEXT.search(markup, pos, start)):
                    if model.mode == BODY and not model.frameset_ok and " " not in stack[-1]:
                        # text in the body only clones back what a block closed
                        if active and (last := active[-1]) is not None and last.at < 0:
                            model._reconstruct()
                            if model.nodes > MAX_NODES or model.depth > MAX_DEPTH:
                                return self._cut(pos)
                    else:
                        model.text(
                            (model.frameset_ok or model.mode in _TABLE_MODES)
                            and _NOT_BLANK.search(markup, pos, start) is None
                        )
                        if model.nodes > MAX_NODES or model.depth > MAX_DEPTH:
                            return self._cut(pos)
                pos = end_at
                end, name, attrs, close, cdata = found.groups()
                if name is None:
                    if cdata is not None:
                        pos, resync = self._cdata(pos), True
                        break
                    continue
                if close is None:
                    return self._done()  # the tag runs to the end: the tokenizer drops it
                lowered = names.get(name)
                if lowered is None:
                    lowered = names[name] = ascii_lower(name)
                name = lowered
                if len(attrs) > 2 * MAX_ATTRIBUTES and _too_many_attributes(attrs):
                    attrs = self._strip(start, pos, end, name, close)
                if end is not None:
                    model.end(name)
                else:
                    raw = model.start(name, attrs, close == "/>")
                    if raw is not None:
                        pos, resync = self._raw_text(raw, pos), True
                if model.nodes > MAX_NODES or model.depth > MAX_DEPTH or model.steps > MAX_STEPS:
                    return self._cut(start)
                if resync:
                    break
            if not resync:
                if pos < length and (not nul or _TEXT.search(markup, pos)):
                    model.text(_NOT_BLANK.search(markup, pos) is None)
                    if model.nodes > MAX_NODES or model.depth > MAX_DEPTH:
                        return self._cut(pos)
                break
        return self._done()

    def _done(self) -> BoundedMarkup:
        self.pieces.append(self.markup[self.kept :])
        return BoundedMarkup("".join(self.pieces), False, self.scripting)

    def _strip(self, start: int, pos: int, end: str | None, name: str, close: str) -> str:
        """Write a tag without its attributes (a `/>` kept where it closes: foreign content)."""
        slash = "/" if close == "/>" and " " in self.model.stack[-1] else ""
        self.pieces.append(self.markup[self.kept : start])
        self.pieces.append(f"<{end or ''}{name}{slash}>")
        self.kept = pos
        return ""

    def _cut(self, at: int) -> BoundedMarkup:
        self.pieces.append(self.markup[self.kept : at])
        return BoundedMarkup("".join(self.pieces), True, self.scripting)

    def _cdata(self, pos: int) -> int:
        """After `<![CDATA[`: a CDATA section in foreign content, else a bogus comment."""
        markup = self.markup
        if " " not in self.model.stack[-1]:
            end = markup.find(">", pos)
            return len(markup) if end < 0 else end + 1
        end = markup.find("]]>", pos)
        end = len(markup) if end < 0 else end
        if end > pos:
            self.model.text(_NOT_BLANK.search(markup, pos, end) is None)
        return end + 3

    def _raw_text(self, name: str, pos: int) -> int:
        """Where the token after a raw-text element's content starts: past its end tag."""
        markup, length = self.markup, len(self.markup)
        if name == "plaintext":
            if pos < length and _TEXT.search(markup, pos):
                self.model.text(_NOT_BLANK.search(markup, pos) is None)
            return length
        end = _script_end(markup, pos) if name == "script" else _end_tag(markup, name, pos)
        if name == "textarea":  # its first newline is dropped
            first = pos + 1 if markup.startswith("\n", pos) else pos
            self.model.raw_end(
                name, _TEXT.search(markup, first, length if end < 0 else end) is not None
            )
        if end < 0:
            return length
        closing = _TOKEN.match(markup, end)
        if closing is None or closing.group("close") is None:
            return length
        return closing.end()


def _end_tag(markup: str, name: str, pos: int) -> int:
    """Where `</name` followed by a space, `/` or `>` starts, in any case (-1: none)."""
    size = len(name) + 2
    while True:
        at = markup.find("</", pos)
        if at < 0:
            return -1
        after = at + size
        if after < len(markup) and markup[after] in _ENDS_NAME:
            found = markup[at + 2 : after]
            if found.isascii() and found.lower() == name:
                return at
        pos = at + 2


def _script_end(markup: str, pos: int) -> int:
    """Where a script's end tag starts (-1: none), through script data's escaped states:
    after `<!--`, a `<script>` hides the next `</script>`."""
    while True:
        end = _end_tag(markup, "script", pos)
        escape = markup.find("<!--", pos, len(markup) if end < 0 else end)
        if escape < 0:
            return end
        state, pos = _SCRIPT_ESCAPED, escape + 2  # `<!-->` is closed by its own dashes
        while True:
            found = state.search(markup, pos)
            if found is None:
                return -1
            mark, pos = found.group(), found.end()
            if mark == "-->":
                break
            if state is _SCRIPT_ESCAPED and mark[1] == "/":
                return found.start()
            state = _SCRIPT_DOUBLE if state is _SCRIPT_ESCAPED else _SCRIPT_ESCAPED


def _too_many_attributes(body: str) -> bool:
    """More than `MAX_ATTRIBUTES` in a tag's attribute text. Each attribute after the first
    starts after a space, a `/` or a quote: with few of those, there is nothing to count."""
    if len(_ATTRIBUTE_AFTER.findall(body)) < MAX_ATTRIBUTES:
        return False
    found = enumerate(ATTRIBUTE.finditer(body), start=1)
    return any(count > MAX_ATTRIBUTES for count, _ in found)
