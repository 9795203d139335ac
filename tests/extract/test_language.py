"""BCP 47 language matching with the IANA registry's macrolanguages."""

from __future__ import annotations

import pytest

from sosoapi.extract.language import match_language


@pytest.mark.parametrize(
    ("asked", "declared", "by"),
    [
        ("no", "no", "exact"),
        ("NB-no", "nb-NO", "exact"),
        ("en", "en-US", "prefix"),
        ("en-AU", "en", "prefix"),
        ("no", "nb-NO", "macrolanguage"),  # NRK and Dagbladet declare nb-NO
        ("no", "nn", "macrolanguage"),
        ("nb", "no", "macrolanguage"),  # a page declaring the macrolanguage may be Bokmål
        ("no-NO", "nb-NO", "macrolanguage"),
        ("zh", "cmn-Hans-CN", "macrolanguage"),
        ("zh-Hans", "cmn-Hans", "macrolanguage"),
        ("ar", "arb", "macrolanguage"),
        ("ar-EG", "arz-EG", "macrolanguage"),
        ("yue", "zh", "macrolanguage"),
    ],
)
def test_matches_and_says_by_which_rule(asked: str, declared: str, by: str) -> None:
    found = match_language(asked, declared)
    assert found is not None
    assert (found.asked, found.matched, found.by) == (asked, declared, by)


@pytest.mark.parametrize(
    ("asked", "declared"),
    [
        ("nb", "nn"),  # two members of one macrolanguage are different languages
        ("en-GB", "en-US"),
        ("no-NO", "nb-SE"),
        ("zh-Hant", "cmn-Hans"),
        ("de", "no"),
        ("ar", "fa"),
    ],
)
def test_does_not_match(asked: str, declared: str) -> None:
    assert match_language(asked, declared) is None
