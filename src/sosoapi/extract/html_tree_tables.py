"""The insertion modes of the tree builder's model (extract/html_tree.py) other than "in
body": in table, in table body, in row, in cell, in caption, in column group, in template
(which picks one of them), and in frameset, where only frames are read. Tables imply
elements (`tbody`, `tr`, `colgroup`), push markers on the list of active formatting
elements at each cell and caption, and foster-parent anything else (inserted before the
table, with the body's rules).
"""

from __future__ import annotations

from sosoapi.extract.html_tree_names import CELL_ENDS, IN_HEAD, SECTIONS, TABLE_IGNORED_ENDS
from sosoapi.extract.html_tree_stack import OpenElements, hidden_input

BODY, TABLE, SECTION, ROW, CELL, CAPTION, COLGROUP, TEMPLATE, FRAMESET, AFTER_FRAMESET = range(10)
_TEMPLATE_MODES = {
    "caption": TABLE, "colgroup": TABLE, "tbody": TABLE, "tfoot": TABLE, "thead": TABLE,
    "col": COLGROUP, "tr": SECTION, "td": ROW, "th": ROW,
}  # fmt: skip
_RESET_MODES = {
    "td": CELL, "th": CELL, "tr": ROW, "tbody": SECTION, "thead": SECTION, "tfoot": SECTION,
    "caption": CAPTION, "colgroup": COLGROUP, "table": TABLE,
}  # fmt: skip
_SECTION_ENDS = frozenset({"body", "caption", "col", "colgroup", "html", "td", "th", "tr"})


class TableModes(OpenElements):
    """The insertion modes other than "in body"; the body's rules are the subclass's."""

    __slots__ = ("mode", "templates")

    def __init__(self) -> None:
        super().__init__()
        self.mode = BODY
        self.templates: list[int] = []  # the stack of template insertion modes

    def start(self, name: str, attrs: str, closed: bool) -> str | None:
        raise NotImplementedError

    def end(self, name: str) -> None:
        raise NotImplementedError

    def _body_start(self, name: str, attrs: str, closed: bool) -> str | None:
        raise NotImplementedError

    def _body_end(self, name: str) -> None:
        raise NotImplementedError

    def _mode_start(self, name: str, attrs: str, closed: bool) -> str | None:
        """A start tag in the current mode (HTML content)."""
        mode = self.mode
        if mode == BODY:
            return self._body_start(name, attrs, closed)
        if mode in (CELL, CAPTION):
            if name not in CELL_ENDS:
                return self._body_start(name, attrs, closed)
            if mode == CELL and (self._in("td", self.table) or self._in("th", self.table)):
                self._close_cell()
            elif mode == CAPTION and self._in("caption", self.table):
                self._close_caption()
            else:
                return None
            return self.start(name, attrs, closed)
        if mode == COLGROUP:
            if name == "col":
                self._leaf()
                return None
            if name == "template":
                return self._body_start(name, attrs, closed)
            if self.stack[-1] != "colgroup":
                return None
            self._pop()
            self.mode = TABLE
            return self.start(name, attrs, closed)
        if mode == TEMPLATE:
            if name in IN_HEAD:
                return self._body_start(name, attrs, closed)
            self.templates[-1] = self.mode = _TEMPLATE_MODES.get(name, BODY)
            return self.start(name, attrs, closed)
        if mode >= FRAMESET:  # only frames count: everything else is dropped
            if name == "frameset" and mode == FRAMESET:
                self._push(name)
            elif name == "noframes" or (name == "frame" and mode == FRAMESET):
                self._leaf()
                return name if name == "noframes" else None
            return None
        return self._rows_start(name, attrs, closed)

    def _rows_start(self, name: str, attrs: str, closed: bool) -> str | None:
        """In row, in table body, in table."""
        mode = self.mode
        if mode == ROW:
            if name == "td" or name == "th":
                self._clear_back("tr")
                self._push(name)
                self.active.append(None)
                self.mode = CELL
                return None
            if name in CELL_ENDS:
                if not self._in("tr", self.table):
                    return None
                self._clear_back("tr")
                self._pop()
                self.mode = SECTION
                return self.start(name, attrs, closed)
        elif mode == SECTION:
            if name in ("tr", "td", "th"):
                self._clear_back(*SECTIONS)
                self._push("tr")
                self.mode = ROW
                return None if name == "tr" else self.start(name, attrs, closed)
            if name in CELL_ENDS:
                if not any(self._in(s, self.table) for s in SECTIONS):
                    return None
                self._clear_back(*SECTIONS)
                self._pop()
                self.mode = TABLE
                return self.start(name, attrs, closed)
        return self._table_start(name, attrs, closed)

    def _table_start(self, name: str, attrs: str, closed: bool) -> str | None:
        if name == "caption":
            self._clear_back()
            self.active.append(None)
            self._push("caption")
            self.mode = CAPTION
        elif name == "colgroup" or name == "col":
            self._clear_back()
            self._push("colgroup")
            self.mode = COLGROUP
            if name == "col":
                return self.start(name, attrs, closed)
        elif name in SECTIONS or name in ("td", "th", "tr"):
            self._clear_back()
            self._push(name if name in SECTIONS else "tbody")
            self.mode = SECTION
            if name not in SECTIONS:
                return self.start(name, attrs, closed)
        elif name == "table":
            if self._in("table", self.table):
                self._pop_until("table")
                self._reset()
                return self.start(name, attrs, closed)
        elif name in ("style", "script", "template"):
            return self._body_start(name, attrs, closed)
        elif name == "input" and hidden_input(attrs):
            self._leaf()
        elif name == "form":
            if not self.where.get("template") and not self.form:
                self.form = True
                self._leaf()
        else:
            return self._body_start(name, attrs, closed)  # foster-parented
        return None

    def _mode_end(self, name: str) -> None:
        """An end tag in the current mode (HTML content)."""
        mode = self.mode
        if mode == BODY:
            self._body_end(name)
        elif mode == CELL:
            if name == "td" or name == "th" or name in ("table", "tbody", "tfoot", "thead", "tr"):
                if self._in(name, self.table):
                    self._close_cell()
                    if name != "td" and name != "th":
                        self.end(name)
            elif name not in ("body", "caption", "col", "colgroup", "html"):
                self._body_end(name)
        elif mode == CAPTION:
            if name == "caption" or name == "table":
                if self._in("caption", self.table):
                    self._close_caption()
                    if name == "table":
                        self.end(name)
            elif name not in TABLE_IGNORED_ENDS:
                self._body_end(name)
        elif mode == COLGROUP:
            if name == "template":
                self._body_end(name)
            elif name != "col" and self.stack[-1] == "colgroup":
                self._pop()
                self.mode = TABLE
                if name != "colgroup":
                    self.end(name)
        elif mode == TEMPLATE:
            if name == "template":
                self._body_end(name)
        elif mode >= FRAMESET:
            if mode == FRAMESET and name == "frameset" and self.stack[-1] == "frameset":
                self._pop()
                if self.stack[-1] != "frameset":
                    self.mode = AFTER_FRAMESET
        else:
            self._rows_end(name)

    def _rows_end(self, name: str) -> None:
        mode = self.mode
        if mode == ROW and (name == "tr" or name == "table" or name in SECTIONS):
            if self._in("tr", self.table) and (name not in SECTIONS or self._in(name, self.table)):
                self._clear_back("tr")
                self._pop()
                self.mode = SECTION
                if name != "tr":
                    self.end(name)
        elif mode == SECTION and (name in SECTIONS or name == "table"):
            if any(self._in(s, self.table) for s in ((name,) if name in SECTIONS else SECTIONS)):
                self._clear_back(*SECTIONS)
                self._pop()
                self.mode = TABLE
                if name == "table":
                    self.end(name)
        elif mode != TABLE and name in _SECTION_ENDS:
            return
        elif name == "table":
            if self._in("table", self.table):
                self._pop_until("table")
                self._reset()
        elif name not in TABLE_IGNORED_ENDS:
            self._body_end(name)  # foster-parented

    def _clear_back(self, *names: str) -> None:
        """Pop to a table context (to a row, or a table section, with `names`)."""
        stop = (*(names or ("table",)), "template", "html")
        while self.stack[-1] not in stop:
            self._pop()

    def _close_cell(self) -> None:
        self._implied()
        while self._pop() not in ("td", "th"):
            pass
        self._clear_to_marker()
        self.mode = ROW

    def _close_caption(self) -> None:
        self._implied()
        self._pop_until("caption")
        self._clear_to_marker()
        self.mode = TABLE

    def _reset(self) -> None:
        """Reset the insertion mode appropriately (after a table or template closes)."""
        stack = self.stack
        for k in range(len(stack) - 1, 1, -1):
            self.steps += 1
            node = stack[k]
            mode = _RESET_MODES.get(node)
            if mode is not None:
                self.mode = mode
                return
            if node == "template":
                self.mode = self.templates[-1] if self.templates else BODY
                return
        self.mode = BODY
