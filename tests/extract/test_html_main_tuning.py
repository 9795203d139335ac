"""html_main's thresholds are one frozen `Tuning`, passed in (issue 35, item 6)."""

from __future__ import annotations

import dataclasses

import pytest
from selectolax.lexbor import LexborHTMLParser

from sosoapi.extract.html_main import extract_main
from sosoapi.extract.html_tuning import TUNING, Tuning

PROSE = (
    "The committee met on Tuesday to review the draft budget, which raises spending on "
    "schools and clinics while trimming the road maintenance programme for next year."
)
PAGE = (
    "<html><body><article><p>Filed under budget</p>"
    + f"<p>{PROSE}</p>" * 4
    + "<p>Share this</p></article></body></html>"
)


def test_the_default_tuning_is_frozen() -> None:
    assert Tuning() == TUNING
    with pytest.raises(dataclasses.FrozenInstanceError):
        TUNING.short = 10  # type: ignore[misc]


def test_a_tuning_passed_in_changes_the_rules_for_that_call_only() -> None:
    default = extract_main(LexborHTMLParser(PAGE)).text
    assert "Filed under budget" not in default and "Share this" not in default
    loose = dataclasses.replace(TUNING, short=5, short_head=5, short_tail=5)
    tuned = extract_main(LexborHTMLParser(PAGE), loose)
    assert tuned.text.startswith("Filed under budget") and tuned.text.endswith("Share this")
    assert extract_main(LexborHTMLParser(PAGE)).text == default  # nothing left behind


def test_confidence_follows_the_tuning_it_was_cut_with() -> None:
    assert extract_main(LexborHTMLParser(PAGE)).confident
    strict = dataclasses.replace(TUNING, sure_min_width=10_000)
    assert not extract_main(LexborHTMLParser(PAGE), strict).confident
