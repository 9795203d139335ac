"""Properties of the quote check, pure (no store): exact and normalized offsets."""

from __future__ import annotations

import unicodedata

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sosoapi.research.algorithms.quote_match import (
    MAX_MATCHES,
    find_quote,
    normalize,
    normalized_quote,
)

LETTERS = "abcXYZéÉßøÆåﬁ0 7ميزانية"
MARKS = "'\"-.\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00ab\u00bb"
SPACES = " \n\t\u00a0\u2009"
ALPHABET = LETTERS + MARKS + SPACES
PLAIN = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u00ab": '"',
    "\u00bb": '"',
    "\u2013": "-",
    "\u2014": "-",
    "\u2026": "...",
}
FANCY = {"'": "\u2019", '"': "\u201c", "-": "\u2014"}

texts = st.text(alphabet=ALPHABET, min_size=1, max_size=300)


@st.composite
def text_and_span(draw: st.DrawFn, source: st.SearchStrategy[str] = texts) -> tuple[str, int, int]:
    text = draw(source)
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, len(text)))
    return text, start, end


@given(text_and_span(st.text(min_size=1, max_size=400)))
@settings(max_examples=300)
def test_any_substring_is_exact_and_its_offsets_slice_back(case: tuple[str, int, int]) -> None:
    text, start, end = case
    quote = text[start:end]
    finding = find_quote(text, quote)
    assert finding.verdict == "exact"
    assert finding.matches and all(text[m.start : m.end] == quote for m in finding.matches)
    assert any(m.start == start for m in finding.matches) or len(finding.matches) == MAX_MATCHES


def _retouch(quote: str, draw: st.DrawFn) -> str:
    """Apply a random mix of the normalisations the quote check must see through."""
    out = []
    for ch in quote:
        how = draw(st.sampled_from(["keep", "case", "plain", "fancy", "space", "nfkc", "nfd"]))
        if how == "case":
            ch = ch.swapcase()
        elif how == "plain":
            ch = PLAIN.get(ch, ch)
        elif how == "fancy":
            ch = FANCY.get(ch, ch)
        elif how == "space" and ch.isspace():
            ch = draw(st.sampled_from([" ", "  ", "\n", "\t \u00a0"]))
        elif how in ("nfkc", "nfd"):
            ch = unicodedata.normalize(how.upper(), ch)
        out.append(ch)
    return "".join(out)


@st.composite
def retouched(draw: st.DrawFn) -> tuple[str, int, int, str]:
    text, start, end = draw(text_and_span())
    return text, start, end, _retouch(text[start:end], draw)


@given(retouched())
@settings(max_examples=400)
def test_after_any_mix_of_normalisations_the_offsets_slice_the_original(
    case: tuple[str, int, int, str],
) -> None:
    text, start, end, quote = case
    original = text[start:end]
    wanted = normalized_quote(quote)
    assume(wanted and wanted == normalized_quote(original))
    finding = find_quote(text, quote)
    assert finding.verdict in ("exact", "normalized")
    if finding.verdict == "exact":
        assert all(text[m.start : m.end] == quote for m in finding.matches)
        return
    for m in finding.matches:
        assert wanted in normalize(text[m.start : m.end]).text
    lead = len(original) - len(original.lstrip())
    expected = (start + lead, start + lead + len(original.strip()))
    spans = [(m.start, m.end) for m in finding.matches]
    assert expected in spans or len(spans) == MAX_MATCHES, (expected, spans)


def test_combining_marks_and_expansions_map_to_whole_characters() -> None:
    text = "Café ﬁnal Straße \u2014 done\u2026"
    for quote, passage in (
        ("cafe\u0301", "Café"),
        ("FINAL", "ﬁnal"),
        ("strasse - done...", "Straße \u2014 done\u2026"),
    ):
        finding = find_quote(text, quote)
        assert finding.verdict == "normalized", quote
        [m] = finding.matches
        assert text[m.start : m.end] == passage


def test_soft_hyphens_in_the_text_do_not_hide_a_quoted_word() -> None:
    # German pages hyphenate with `&shy;`: invisible, but in the text as U+00AD.
    text = "Die großen Weine Ita\u00adli\u00adens, neben Baro\u00adlo und Barbaresco."
    finding = find_quote(text, "Italiens, neben Barolo")
    assert finding.verdict == "normalized"
    [m] = finding.matches
    assert text[m.start : m.end] == "Ita\u00adli\u00adens, neben Baro\u00adlo"
