"""Anchors that travel: W3C selectors and WICG text fragments of a span (pure)."""

from __future__ import annotations

from urllib.parse import unquote

from sosoapi.research.evidence.anchors import anchor, fragment_url

URL = "https://example.org/report?id=7#section-2"


def test_the_selector_pair_re_finds_the_span() -> None:
    text = "x" * 100 + "The council, at last, voted." + "y" * 100
    start = 100
    end = start + len("The council, at last, voted.")
    quote, position = anchor(text, start, end, URL).selector
    assert (quote.exact, quote.prefix, quote.suffix) == (text[start:end], "x" * 32, "y" * 32)
    assert (position.start, position.end) == (start, end)
    assert text[position.start : position.end] == quote.exact


def test_a_fragment_encodes_the_reserved_characters_and_drops_the_old_fragment() -> None:
    text = "Rates rose - again, by 2% & more."
    url = fragment_url(URL, text, 0, len(text))
    assert url is not None
    base, directive = url.split("#:~:text=")
    assert base == "https://example.org/report?id=7"
    assert "-" not in directive and "%2D" in directive
    assert "," not in directive and "&" not in directive and " " not in directive
    assert unquote(directive) == text


def test_a_long_span_is_given_by_its_first_and_last_words() -> None:
    words = [f"w{i}" for i in range(40)]
    text = " ".join(words)
    url = fragment_url(URL, text, 0, len(text))
    assert url is not None
    start, end = url.split("#:~:text=")[1].split(",")
    assert unquote(start) == "w0 w1 w2 w3 w4" and unquote(end) == "w35 w36 w37 w38 w39"


def test_a_repeated_span_carries_word_context_to_pick_its_occurrence() -> None:
    text = "Alpha said yes. Beta said yes. Gamma said yes."
    second = text.index("said yes", 10)
    url = fragment_url(URL, text, second, second + len("said yes"))
    assert url is not None
    directive = unquote(url.split("#:~:text=")[1])
    assert directive == "said yes. Beta-,said yes,-. Gamma said"
    unique = fragment_url(URL, text, 0, len("Alpha said"))
    assert unique is not None and unquote(unique.split("#:~:text=")[1]) == "Alpha said"


def test_no_source_url_no_fragment() -> None:
    assert anchor("Some text.", 0, 4, None).text_fragment_url is None
    assert fragment_url(URL, "   ", 0, 3) is None
