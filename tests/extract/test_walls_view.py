"""PageView.has finds a lower-case needle exactly where `markup.lower()` holds it, though
it searches the markup's UTF-8 bytes with only ASCII letters lowered; visible_text finds
closing tags in any ASCII case without lowering the markup."""

from __future__ import annotations

import pytest

from sosoapi.extract.html_bounds import BoundedMarkup
from sosoapi.extract.walls.text import visible_text
from sosoapi.extract.walls.types import Page
from sosoapi.extract.walls.view import PageView

NEEDLES = ("password", "gokuprops", "<script", "consent.", "turnstile", "var dd", "i")

# Upper case, non-ASCII text around the needle, the two letters outside ASCII whose lower
# case is ASCII (U+0130 and the Kelvin sign), other look-alikes (the long s, a full-width
# P), and a lone surrogate.
MARKUPS = [
    "<p>Your PassWord</p>", "<SCRIPT src=x>", "Grüße <p>gokuprops</p> 東京",
    "<p>GO\u212aUPROPS</p>", "<p>\u0130</p>", "t\u0130rnstile", "pa\u017fsword",
    "\uff30assword", "consent\u3002", "VAR  DD var\tdd", "x\ud800y consent.", "",
]  # fmt: skip


@pytest.mark.parametrize("markup", MARKUPS)
@pytest.mark.parametrize("needle", NEEDLES)
def test_has_answers_as_the_lowered_markup(markup: str, needle: str) -> None:
    view = PageView(Page(BoundedMarkup(markup, nodes_limited=False)))
    assert view.has((needle,)) is (needle in markup.lower())


def test_a_needle_outside_ascii_is_refused() -> None:
    view = PageView(Page(BoundedMarkup("<p>grüße</p>", nodes_limited=False)))
    with pytest.raises(UnicodeEncodeError):
        view.has(("grüße",))


@pytest.mark.parametrize(
    ("markup", "shown"),
    [
        ("<p>a</p><SCRIPT>x</ScRiPt>b", "a b"),
        ("<STYLE>p{}</style ><p>a</p>", "a"),
        ("<p>a</p><style>\u212a</STYLE>b", "a b"),
        ("<p>a</p><template>b", "a"),
        ("<p>Grüße</p><script>x</script><p>東京</p>", "Grüße 東京"),
        # U+0130 lowers to two characters: an offset found in the lowered markup cut the
        # text after the script three characters late ("ipt>Shown")
        ("<p>\u0130\u0130\u0130</p><script>hidden()</script>Shown", "\u0130\u0130\u0130 Shown"),
        # the tokenizer reads tag names in ASCII case only: a long s is not an `s`
        ("<p>a</p><\u017fcript>b</\u017fcript>", "a b"),
    ],
)
def test_visible_text_drops_scripts_in_any_ascii_case(markup: str, shown: str) -> None:
    assert visible_text(markup) == shown
