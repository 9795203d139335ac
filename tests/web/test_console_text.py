"""The console's text layout: a diff cut to its context, query words marked. Pure."""

from __future__ import annotations

import re

from sosoapi.research.evidence.diffs import compare
from sosoapi.research.evidence.scope import StoredRevision
from sosoapi.research.evidence.search import parse_query
from sosoapi.web.console_text import diff_pieces, marked
from tests.research.test_pdf_citations import URL, pdf_revision
from tests.support.results import page_result


def _revision(text: str, revision: int) -> StoredRevision:
    content = page_result(
        text, source_url="https://example.com/", retrieved_at="2026-01-01T00:00:00Z"
    )
    return StoredRevision(
        "00000000-0000-4000-8000-000000000000", revision, 2, content, content.text, []
    )


def pieces(old: str, new: str, context: int = 40) -> list[tuple[str, str]]:
    diff = compare(_revision(old, 1), _revision(new, 2))
    return diff_pieces(diff.changes, new, context)


def reading(found: list[tuple[str, str]], leave_out: str) -> str:
    return "".join(text for kind, text in found if kind not in (leave_out, "skip"))


def test_short_texts_are_shown_whole_with_each_change_in_place() -> None:
    old, new = "The council approved the budget.", "The council rejected the new budget."
    found = pieces(old, new)
    assert found == [
        ("same", "The council "),
        ("del", "approved"),
        ("ins", "rejected"),
        ("same", " the "),
        ("ins", "new "),
        ("same", "budget."),
    ]
    assert reading(found, "del") == new and reading(found, "ins") == old


def test_long_unchanged_runs_keep_only_their_context() -> None:
    words = [f"word{i}" for i in range(200)]
    old = " ".join(words)
    new = " ".join([*words[:100], "CHANGED", *words[101:]])
    found = pieces(old, new, context=40)
    kinds = [kind for kind, _ in found]
    assert kinds == ["skip", "same", "del", "ins", "same", "skip"]
    before, after = found[1][1], found[4][1]
    assert 20 <= len(before) <= 40 and before.endswith("word99 ") and before[0] != " "
    assert 20 <= len(after) <= 40 and after.startswith(" word101")
    hidden = int(found[0][1].replace(",", "")) + int(found[-1][1].replace(",", ""))
    assert hidden + len(before) + len(after) + len("CHANGED") == len(new)


def test_unchanged_text_between_two_far_changes_is_shortened_in_the_middle() -> None:
    middle = " ".join(f"w{i}" for i in range(300))
    old, new = f"alpha {middle} omega", f"ALPHA {middle} OMEGA"
    found = pieces(old, new, context=30)
    assert [k for k, _ in found] == ["del", "ins", "same", "skip", "same", "del", "ins"]
    kept = len(found[2][1]) + len(found[4][1])
    assert kept <= 60 and kept + int(found[3][1].replace(",", "")) == len(middle) + 2
    assert found[2][1].startswith(" w0 ") and found[4][1].endswith(" w299 ")


def test_no_change_no_pieces() -> None:
    assert pieces("same text", "same text") == []


def test_marked_finds_words_and_phrases_in_any_case_and_nothing_inside_words() -> None:
    text = 'The Budget and "public  health"; budgets stay; <script>alert(1)</script> &lt;'
    found = marked(text, parse_query('budget "public health" script lt'))
    assert "".join(piece for piece, _ in found) == text  # nothing lost or added
    assert [piece for piece, hit in found if hit] == [
        "Budget",
        "public  health",
        "script",
        "script",
        "lt",
    ]
    assert marked(text, []) == [(text, False)]


def test_a_pdf_change_is_preceded_by_its_page_once_per_page() -> None:
    """Two changes on page 4 of a paper and one on page 1: a `page` piece before the first
    change of each page, none before a second change on the same page."""
    old = pdf_revision(URL)
    first, fourth = old.pages[0], old.pages[3]
    long_word = re.compile(r"\b[a-z]{9,}\b")
    found_1 = long_word.search(old.text, first.start, first.end)
    found_4 = list(long_word.finditer(old.text, fourth.start, fourth.end))[:2]
    assert found_1 is not None and len(found_4) == 2
    edits = [found_1, *found_4]  # one word of page 1, two of page 4
    text = old.text
    for match in reversed(edits):  # from the end: the earlier offsets stay true
        text = text[: match.start()] + match.group().upper() + text[match.end() :]
    new = pdf_revision(URL, 2, text)
    diff = compare(old, new)
    found = diff_pieces(diff.changes, new.text, 40)
    assert [c.to_page.number for c in diff.changes if c.to_page] == [1, 4, 4]
    assert [text for kind, text in found if kind == "page"] == ["1", "4"]
    assert all(m.group().upper() in reading(found, "del") for m in edits)


def test_a_web_page_diff_has_no_page_pieces() -> None:
    assert all(kind != "page" for kind, _ in pieces("One two three.", "One four three."))
