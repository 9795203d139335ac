"""Diacritic folding: the fast paths give what the plain definition gives, for any text."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from sosoapi.extract.passages import fold_diacritics


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
