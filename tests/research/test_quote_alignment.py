"""An approximate quote reports the whole aligned passage of the source, through the words
that differ, and names them; exact and normalized matches name none."""

from __future__ import annotations

import pytest

from sosoapi.research.algorithms.quote_match import find_quote

TEXT = "We agreed to defer the item until the summer. Then the meeting closed at noon."


@pytest.mark.parametrize(
    ("quote", "passage", "differ"),
    [
        (  # the differing word at the end: no longer cut off
            "We agreed to defer the item until the autumn",
            "We agreed to defer the item until the summer",
            [("autumn", "summer")],
        ),
        (  # at the start
            "They agreed to defer the item until the summer",
            "We agreed to defer the item until the summer",
            [("they", "We")],
        ),
        (  # a word the quote drops, in the middle
            "We agreed to defer the item until summer",
            "We agreed to defer the item until the summer",
            [("", "the")],
        ),
        (  # a word the quote adds
            "We agreed to defer the whole item until the summer",
            "We agreed to defer the item until the summer",
            [("whole", "")],
        ),
    ],
)
def test_the_passage_runs_through_the_words_that_differ(
    quote: str, passage: str, differ: list[tuple[str, str]]
) -> None:
    finding = find_quote(TEXT, quote)
    assert finding.verdict == "approximate"
    (found,) = finding.matches
    assert TEXT[found.start : found.end] == passage
    assert [(d.quote, TEXT[d.start : d.end]) for d in found.differences] == differ


def test_an_exact_or_normalized_match_names_no_differences() -> None:
    assert find_quote(TEXT, "defer the item").matches[0].differences == ()
    assert find_quote(TEXT, "DEFER  the ITEM").matches[0].differences == ()


def test_offsets_point_into_the_original_text_across_normalisation() -> None:
    text = "Caf\u00e9 \u201cowners\u201d agreed to defer the item until the summer."
    (found,) = find_quote(text, 'Cafe "owners" agreed to defer the item until the autumn').matches
    assert text[found.start : found.end].endswith("until the summer")
    assert [text[d.start : d.end] for d in found.differences][-1] == "summer"
