"""Repairs made to markup before it is parsed, where pages break the parser's rules.

A `<title>` is raw text to an HTML parser: everything up to `</title>` is the title. A page
that never closes it (or closes it with a mangled tag, `</titl>`, `</title` without `>`)
puts the whole page into its title, and the body is empty (browsers show the same). Tools
built on libxml2 (readability-lxml, html-text) recover the page; so does this: a title
that runs away (never closed, or closed only past the end of the head, the start of the
body, or far past any title's length) and whose raw text holds a tag that cannot be in a
title (any block or metadata element) is closed at its first `<`. A title closed where it
should be keeps its text as HTML parses it, markup-like text included
(`<title><script>x</script>Hostile</title>`, "Why <div> soup hurts").
"""

from __future__ import annotations

import re

_TITLE_OPEN = re.compile(r"<title(?:\s[^>]*)?>", re.IGNORECASE)
_TITLE_CLOSE = re.compile(r"</title\s*>", re.IGNORECASE)
# Where a runaway title must end: a tag a real title never holds.
_NOT_IN_TITLE = re.compile(
    r"</?(?:head|body|html|meta|link|script|style|noscript|base|div|p|h[1-6]|table|ul|ol"
    r"|header|nav|main|article|section|footer|form|img|a|span|br|iframe)[\s/>]",
    re.IGNORECASE,
)
# A closed title ran away when its raw text holds the head's end or the body's start.
_PAST_THE_HEAD = re.compile(r"</head[\s>]|<body[\s/>]|</body[\s>]|</?html[\s/>]", re.IGNORECASE)
# Only the head is searched for the title's opening tag.
_HEAD_SPAN = 64_000
# A closed title longer than this, holding a tag, is a page swallowed (titles are short).
_TITLE_SPAN_MAX = 2_000


def close_runaway_title(markup: str) -> str:
    """`markup` with a runaway first `<title>` closed at its first `<`."""
    opened = _TITLE_OPEN.search(markup, 0, _HEAD_SPAN)
    if opened is None:
        return markup
    start = opened.end()
    closed = _TITLE_CLOSE.search(markup, start)
    stop = closed.start() if closed else len(markup)
    if _NOT_IN_TITLE.search(markup, start, stop) is None:
        return markup
    if (
        closed is not None
        and stop - start <= _TITLE_SPAN_MAX
        and _PAST_THE_HEAD.search(markup, start, stop) is None
    ):
        return markup  # closed where it should be: its text is the title, tags and all
    end = markup.find("<", start, stop)
    return f"{markup[:end]}</title>{markup[end:]}"
