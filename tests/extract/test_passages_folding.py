"""Diacritic folding: the fast paths give what the plain definition gives, for any text."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from sosoapi.extract.passages import fold_diacritics, searchable


def by_definition(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    )


@given(st.text())
def test_folding_matches_the_definition_for_any_text(text: str) -> None:
    assert fold_diacritics(text) == by_definition(text)


@given(st.text(alphabet="aeiouZüéñçåøœﬁ…\u0301\u0308 日本語كَتَبَ", max_size=60))
def test_folding_matches_the_definition_on_marked_letters(text: str) -> None:
    assert fold_diacritics(text) == by_definition(text)


def test_marks_go_and_letters_stay() -> None:
    assert fold_diacritics("Zürich ﬁnal… كَتَبَ") == "Zurich final... كتب"


_MARKUP_AND_HINTS = "<>&\x00\u00ad"


def searchable_by_definition(text: str) -> str:
    """The search form as a translation table says it: `<`, `>`, `&` and NUL are spaces,
    the soft hyphen goes."""
    table = str.maketrans({"<": " ", ">": " ", "&": " ", "\x00": " ", "\u00ad": None})
    return fold_diacritics(text).translate(table)


@given(st.text(alphabet=st.sampled_from(f"{_MARKUP_AND_HINTS}aZü日 \u0301\U0001f600")))
def test_the_search_form_matches_its_definition_on_markup_characters(text: str) -> None:
    assert searchable(text) == searchable_by_definition(text)


@given(st.text())
def test_the_search_form_matches_its_definition_for_any_text(text: str) -> None:
    assert searchable(text) == searchable_by_definition(text)


def test_the_search_form_spaces_markup_and_drops_soft_hyphens() -> None:
    assert searchable("Baro\u00adlo <b>&amp; Zürich\x00") == "Barolo  b  amp; Zurich "
