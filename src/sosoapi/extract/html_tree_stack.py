"""The tree builder's two structures, as extract/html_tree.py's model keeps them: the stack
of open elements (with each element's depth in the document) and the list of active
formatting elements, with the algorithms that move elements between them: reconstructing
the active formatting elements, Noah's ark, and the adoption agency.

Each scope check is one comparison: the stack indices of every open name, and of the
elements each kind of scope stops at, are kept as elements are pushed and popped.
"""

from __future__ import annotations

import functools
import re

from sosoapi.extract.html_tree_names import (
    BLOCK_END,
    HEADINGS,
    IMPLIED_END,
    IMPLIED_END_ALL,
    SCOPE,
    SPECIAL,
)  # fmt: skip

ATTRIBUTE = re.compile(
    r"""([^\t\n\f\r />][^\t\n\f\r />=]*)"""
    r"""(?:[\t\n\f\r ]*=[\t\n\f\r ]*("[^"]*"?|'[^']*'?|[^\t\n\f\r >]*))?"""
)
# Per name: which scopes stop at the element (every scope at SCOPE's; button scope also at
# `button`, list item scope also at `ol` and `ul`, table scope only at `html`, `table` and
# `template`), and whether a scope check ever asks for the name (its indices are kept).
_SCOPE, _BUTTON, _ITEMS, _TABLE, _ASKED = 1, 2, 4, 8, 16
_FLAGS = dict.fromkeys(
    (*BLOCK_END, *HEADINGS, "applet", "body", "button", "caption", "dd", "dt", "form", "html",
     "li", "marquee", "nobr", "object", "p", "ruby", "select", "table", "tbody", "td",
     "template", "tfoot", "th", "thead", "tr"),
    _ASKED,
)  # fmt: skip
for _name in SCOPE:
    _FLAGS[_name] = _FLAGS.get(_name, 0) | _SCOPE | _BUTTON | _ITEMS
_FLAGS["button"] |= _BUTTON
_FLAGS["ol"] |= _ITEMS
_FLAGS["ul"] |= _ITEMS
for _name in ("html", "table", "template"):
    _FLAGS[_name] |= _TABLE


def attributes(text: str) -> list[tuple[str, str]]:
    """The (name, raw value) pairs of a tag's attribute text, the first of each name, in
    name order (two tags with the same attributes in any order give the same list)."""
    seen: dict[str, str] = {}
    for match in ATTRIBUTE.finditer(text):
        name = match.group(1).lower()
        if name not in seen:
            seen[name] = (match.group(2) or "").strip("\"'")
    return sorted(seen.items())


def hidden_input(attrs: str) -> bool:
    """An `<input>`'s attributes say `type=hidden` (in any case)."""
    return any(k == "type" and v.lower() == "hidden" for k, v in attributes(attrs))


@functools.lru_cache(maxsize=1024)
def _attributes_key(key: str) -> tuple[str, list[tuple[str, str]]]:
    name, _, text = key.partition(" ")
    return name, attributes(text)


def _same(one: str, other: str) -> bool:
    """Two formatting keys (name, then the attribute text) hold the same attributes."""
    return one == other or _attributes_key(one) == _attributes_key(other)


class Entry:
    """A formatting element: `at` is its stack index (-1 once something closed it: if it
    is still `listed`, the next text clones it back), `key` its name and attributes."""

    __slots__ = ("at", "key", "listed", "name")

    def __init__(self, name: str, key: str) -> None:
        self.name, self.key, self.at, self.listed = name, key, -1, False


class OpenElements:
    """The stack and the list. `nodes` counts the elements made, `steps` the walks done,
    `depth` is the document depth of the deepest element made so far: the stack's height
    plus `lift`, the open elements taken off the stack while still holding what follows
    (a misnested `</form>`, a second `<a>`)."""

    __slots__ = ("active", "button", "depth", "fmt", "form", "form_at", "items", "lift", "nodes",
                 "scope", "stack", "steps", "table", "where")  # fmt: skip

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.fmt: list[Entry | None] = []  # each open element's formatting entry, if any
        self.where: dict[str, list[int]] = {}  # the stack indices of the names asked for
        self.scope: list[int] = []  # stack indices of the elements a scope stops at
        self.button: list[int] = []
        self.items: list[int] = []
        self.table: list[int] = []
        self.active: list[Entry | None] = []  # None is a marker
        self.form, self.form_at = False, -1  # the form element pointer, and its index
        self.nodes = self.steps = self.depth = self.lift = 0

    def _push(self, name: str, entry: Entry | None = None) -> None:
        at = len(self.stack)
        self.stack.append(name)
        self.fmt.append(entry)
        if at + self.lift >= self.depth:
            self.depth = at + self.lift + 1
        flags = _FLAGS.get(name)
        if flags:
            if flags & _ASKED:
                found = self.where.get(name)
                if found is None:
                    self.where[name] = [at]
                else:
                    found.append(at)
            if flags & _SCOPE:
                self.scope.append(at)
            if flags & _BUTTON:
                self.button.append(at)
            if flags & _ITEMS:
                self.items.append(at)
            if flags & _TABLE:
                self.table.append(at)
        if entry is not None:
            entry.at = at
        self.nodes += 1

    def _leaf(self) -> None:
        """An element that is never open: void, self-closed, or raw text."""
        self.nodes += 1
        if len(self.stack) + self.lift >= self.depth:
            self.depth = len(self.stack) + self.lift + 1

    def _pop(self) -> str:
        name = self.stack.pop()
        entry = self.fmt.pop()
        flags = _FLAGS.get(name)
        if flags:
            if flags & _ASKED:
                self.where[name].pop()
                if self.form_at == len(self.stack):
                    self.form_at = -1
            if flags & _SCOPE:
                self.scope.pop()
            if flags & _BUTTON:
                self.button.pop()
            if flags & _ITEMS:
                self.items.pop()
            if flags & _TABLE:
                self.table.pop()
        if entry is not None:
            entry.at = -1
        return name

    def _rebuild(self, opened: list[tuple[str, Entry | None]], form_at: int) -> None:
        """Replace the stack with (name, entry) pairs: the adoption agency and a removal
        move elements within it; `form_at` is where the form element pointer's form is
        now (-1: off the stack)."""
        nodes, depth, steps = self.nodes, self.depth, self.steps + len(opened)
        for entry in self.fmt:
            if entry is not None:
                entry.at = -1  # off the stack unless `opened` holds it
        for kept in (self.stack, self.fmt, self.where, self.scope, self.button, self.items,
                     self.table):  # fmt: skip
            kept.clear()  # in place: the scan holds the stack
        for name, entry in opened:
            self._push(name, entry)
        self.nodes, self.depth, self.steps = nodes, depth, steps
        self.form_at = form_at

    def _opened(self, start: int = 0, end: int | None = None) -> list[tuple[str, Entry | None]]:
        return list(zip(self.stack[start:end], self.fmt[start:end], strict=True))

    def _remove(self, at: int) -> None:
        """Take the element at `at` off the stack; it stays in the document, around what
        follows, which is one level deeper than the stack says."""
        form = self.form_at
        self._rebuild(
            self._opened(0, at) + self._opened(at + 1),
            -1 if form == at else form - 1 if form > at else form,
        )
        self.lift += 1

    def _in(self, name: str, scope: list[int]) -> bool:
        """`name` is open, with none of the elements `scope` stops at above it."""
        found = self.where.get(name)
        return bool(found) and scope[-1] <= found[-1]  # type: ignore[index]

    def _pop_until(self, name: str) -> None:
        while self._pop() != name:
            pass

    def _pop_to(self, size: int) -> None:
        while len(self.stack) > max(size, 2):
            self._pop()

    def _implied(self, keep: str = "", *, thoroughly: bool = False) -> None:
        names = IMPLIED_END_ALL if thoroughly else IMPLIED_END
        while self.stack[-1] in names and self.stack[-1] != keep:
            self._pop()

    def _close_p(self) -> None:
        found = self.where.get("p")  # `_in("p", self.button)`, inline: most blocks ask
        if found and self.button[-1] <= found[-1]:
            self._implied("p")
            self._pop_until("p")

    def _reconstruct(self) -> None:
        """Clone back the formatting elements closed since the last text: the entries
        after the last one still open (or the last marker)."""
        active = self.active
        if not active or (last := active[-1]) is None or last.at >= 0:
            return
        first = len(active) - 1
        while first > 0 and (before := active[first - 1]) is not None and before.at < 0:
            first -= 1
        for entry in active[first:]:
            assert entry is not None
            self._push(entry.name, entry)  # the clone takes the entry's place

    def _formatting(self, name: str, attrs: str) -> None:
        """Push a formatting element; Noah's ark keeps three alike after the last marker
        (same name and attributes, in any order: compared only past three of a name)."""
        key = f"{name} {attrs.strip()}" if attrs else name
        named: list[Entry] = []
        for entry in reversed(self.active):
            self.steps += 1
            if entry is None:
                break
            if entry.name == name:
                named.append(entry)
        if len(named) >= 3:
            alike = [e for e in named if _same(e.key, key)]
            if len(alike) >= 3:
                self._unlist(alike[-1])
        self._list(name, key)

    def _list(self, name: str, key: str) -> None:
        entry = Entry(name, key)
        entry.listed = True
        self._push(name, entry)
        self.active.append(entry)

    def _unlist(self, entry: Entry) -> None:
        active = self.active
        self.steps += len(active)
        if active[-1] is entry:
            active.pop()  # the common case: the element just closed was the last listed
        else:
            active.remove(entry)
        entry.listed = False

    def _last(self, name: str) -> int:
        """The index of the last entry named `name` after the last marker (-1: none)."""
        active = self.active
        for index in range(len(active) - 1, -1, -1):
            self.steps += 1
            entry = active[index]
            if entry is None:
                return -1
            if entry.name == name:
                return index
        return -1

    def _clear_to_marker(self) -> None:
        while self.active:
            entry = self.active.pop()
            if entry is None:
                return
            entry.listed = False

    def _adopt(self, subject: str, *, end_tag: bool = True) -> None:
        """The adoption agency algorithm, as Lexbor runs it (an end tag of a formatting
        element, or `<a>` or `<nobr>` while one is open): at most 8 rounds, each cloning
        at most 4 elements. Lexbor keeps list positions across removals in a round, so a
        round can leave the old element listed (and cloned back later); so does this."""
        if self.stack[-1] == subject:
            top = self.fmt[-1]
            if top is None or not top.listed or self.active[-1] is top:
                self._pop()  # not listed, or a plain end tag closing the current node
                if top is not None and top.listed:
                    self._unlist(top)
                return
        for _ in range(8):
            index = self._last(subject)
            if index < 0:
                if end_tag:
                    self._any_end(subject)
                return
            element = self.active[index]
            assert element is not None
            at = element.at
            if at < 0:
                self._unlist(element)
                return
            if self.scope[-1] > at:
                return
            stack = self.stack
            self.steps += len(stack) - at
            furthest = next((k for k in range(at + 1, len(stack)) if stack[k] in SPECIAL), -1)
            if furthest < 0:
                self._pop_to(at)
                self._unlist(element)
                return
            self._adopt_round(element, index, at, furthest)

    def _adopt_round(self, element: Entry, index: int, at: int, furthest: int) -> None:
        """One round with a furthest block: the listed elements between (the nearest three)
        are cloned, the others dropped from the stack, and the formatting element's clone
        goes under the furthest block, around its children (no deeper than before)."""
        active, fmt = self.active, self.fmt
        kept: list[tuple[str, Entry | None]] = []
        bookmark = index
        for count, k in enumerate(range(furthest - 1, at, -1), start=1):
            node = fmt[k]
            if node is None or not node.listed:
                continue
            if count > 3:
                self._unlist(node)
                continue
            clone = Entry(node.name, node.key)
            clone.listed, node.listed = True, False
            place = active.index(node)
            active[place] = clone
            if not kept:
                bookmark = place + 1
            kept.append((node.name, clone))
        clone = Entry(element.name, element.key)
        clone.listed = True
        self.nodes += len(kept) + 1
        if index < len(active):
            removed = active.pop(index)  # Lexbor's index, whatever it holds now
            if removed is not None:
                removed.listed = False
        active.insert(min(bookmark, len(active)), clone)
        kept.reverse()
        # the form can only be the furthest block or below or above the elements moved:
        # those between are not special
        form, shift = self.form_at, len(kept) + at + 1 - furthest
        self._rebuild(
            self._opened(0, at)
            + kept
            + [(self.stack[furthest], fmt[furthest]), (clone.name, clone)]
            + self._opened(furthest + 1),
            form if form < at else at + len(kept) if form == furthest else form + shift,
        )

    def _any_end(self, name: str) -> None:
        """ "Any other end tag": close `name` if no special element is open above it."""
        stack = self.stack
        for k in range(len(stack) - 1, 1, -1):
            self.steps += 1
            node = stack[k]
            if node == name:
                self._implied(name)
                self._pop_to(k)
                return
            if node in SPECIAL:
                return
