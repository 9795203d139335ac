"""WebVTT against the web-platform-tests file-parsing suite and the W3C algorithm.

Two harnesses over the 37 WPT files: the transcribed browser assertions in
`expectations-subset.json`, and, for the other files, cue lists derived by hand from the
W3C file-parsing algorithm (https://www.w3.org/TR/webvtt1/#file-parsing). Both run on the
raw cue list, before any mapping to contract segments.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sosoapi.extract.webvtt import (
    RawCue,
    cue_alignment,
    cue_text_plain,
    parse_webvtt,
    parse_webvtt_raw,
)
from tests.extract.conftest import WPT, wpt_text

EXPECTATIONS = json.loads((WPT / "expectations-subset.json").read_text("utf-8"))
TRANSCRIBED = sorted(k for k in EXPECTATIONS if (WPT / f"{k}.vtt").exists())

# The one `per_cue` rule in the transcription, read as Python.
PER_CUE = {
    "id=='' and text=='text'+i for i in 0..5": lambda i, cue: (
        cue.identifier == "" and cue_text_plain(cue.text) == f"text{i}"
    )
}

# The vendored settings-line.vtt carries one block more than the WPT revision (3c82cc2c)
# whose assertion `cues.length == 45` was transcribed: this block, labelled invalid37.
EXTRA_SETTINGS_LINE_BLOCK = "00:00:00.000 --> 00:00:01.000 line:100%,\ninvalid37\n\n"


def raw_cues(name: str) -> tuple[RawCue, ...]:
    parsed = parse_webvtt_raw(wpt_text(name))
    assert parsed.valid, f"{name}.vtt must pass the signature check"
    return parsed.cues


def check_transcribed(expect: dict, cues: tuple[RawCue, ...]) -> None:
    """Every assertion the transcription holds, with times compared as the browser does."""
    assert len(cues) == expect["cues_length"]
    for index, want in enumerate(expect.get("cues", [])):
        cue = cues[index]
        if "id" in want:
            assert cue.identifier == want["id"]
        if "text" in want:
            assert cue_text_plain(cue.text) == want["text"]
        if "startTime" in want:
            assert cue.start_ms / 1000 == want["startTime"]
        if "endTime" in want:
            assert cue.end_ms / 1000 == want["endTime"]
        if "align" in want:
            assert cue_alignment(cue.settings) == want["align"]
    if "ids" in expect:
        assert [c.identifier for c in cues] == expect["ids"]
    if "times" in expect:
        assert [[c.start_ms / 1000, c.end_ms / 1000] for c in cues] == expect["times"]
    if "per_cue" in expect:
        rule = PER_CUE[expect["per_cue"]]
        assert all(rule(i, cue) for i, cue in enumerate(cues))


@pytest.mark.parametrize("name", TRANSCRIBED)
def test_transcribed_wpt_expectation(name: str) -> None:
    text = wpt_text(name)
    if name == "settings-line":
        # See tests/data/captions/README.md: the count was transcribed from the upstream
        # file, which is the vendored one without the extra block.
        assert text.count(EXTRA_SETTINGS_LINE_BLOCK) == 1
        text = text.replace(EXTRA_SETTINGS_LINE_BLOCK, "")
    parsed = parse_webvtt_raw(text)
    assert parsed.valid
    check_transcribed(EXPECTATIONS[name], parsed.cues)


def test_transcription_covers_fourteen_files_and_the_rest_are_derived() -> None:
    assert len(TRANSCRIBED) == 14
    assert set(TRANSCRIBED).isdisjoint(DERIVED)
    assert {p.stem for p in WPT.glob("*.vtt")} == set(TRANSCRIBED) | set(DERIVED)


def test_settings_line_as_vendored_keeps_all_46_cue_blocks() -> None:
    # Settings never reject a cue: every one of the 46 blocks has a valid timing line.
    cues = raw_cues("settings-line")
    assert len(cues) == 46
    assert [cue_text_plain(c.text) for c in cues[36:38]] == ["invalid36", "invalid37"]


def same(count: int, text: str = "text", identifier: str = "") -> list[tuple]:
    return [(identifier, 0, 1000, text)] * count


def numbered(labels: str) -> list[tuple]:
    """'text0 text1 invalid2' -> cues ('', 0, 1000, label) in that order."""
    return [("", 0, 1000, label) for label in labels.split()]


# Cue lists derived from the W3C algorithm for the files the transcription does not cover.
DERIVED: dict[str, list[tuple]] = {
    # The header block collects lines until a blank line, or stops before an arrow
    # line; a line holding only a space or a tab is not blank, so it is header text and
    # the arrow line then starts the first cue.
    "header-space": same(1),
    "header-tab": same(1),
    # REGION blocks (before any cue) and NOTE blocks are not cues; a cue's `region:`
    # setting never rejects it, even when it names no region or an invalid one.
    "regions-id": same(4, "valid"),
    "regions-lines": same(13),
    "regions-regionanchor": same(20),
    "regions-scroll": same(6),
    "regions-viewportanchor": same(20),
    # "Region:" lines directly under the signature are header lines, ignored.
    "regions-old": numbered("text0 text1"),
    # Settings never reject a cue: unknown or malformed settings are skipped one by one.
    "settings-align": numbered(" ".join(f"text{i}" for i in range(13))),
    "settings-position": numbered(
        " ".join([f"text{i}" for i in range(8)] + [f"invalid{i}" for i in range(8, 22)])
    ),
    "settings-region": numbered(
        "text0 text1 text2 text3 text4 invalid5 invalid6 invalid7 invalid8"
    ),
    "settings-size": numbered(
        " ".join([f"text{i}" for i in range(7)] + [f"invalid{i}" for i in range(7, 16)])
    ),
    "settings-vertical": numbered("text0 text1 text2 text3 invalid4 invalid5 invalid6 invalid7"),
    # A line before the arrow line is the cue identifier.
    "settings-multiple": [("id0", 0, 1000, "text0"), ("id1", 0, 1000, "text1")],
    # Signature "WEBVTT" followed by space or tab, with or without a line feed: valid,
    # nothing after it. In signature-timings the timing sits on the signature line,
    # which step 7 consumes whole; "text" is then a header line: no cue.
    "signature-space": [],
    "signature-space-no-newline": [],
    "signature-tab": [],
    "signature-tab-no-newline": [],
    "signature-timings": [],
    # The first STYLE block (before any cue) is a style sheet, and its "-- >" line has
    # no "-->", so it stays inside; ".bar {...}" is a block of plain lines (no cue).
    # "foo" and "bar" then identify the two cues; the second STYLE block comes after a
    # cue, so it is an ordinary non-cue block.
    "stylesheets": [("foo", 0, 1000, "text"), ("bar", 0, 1000, "text")],
    # Every timing line has a stray character inside a timestamp or the arrow, or uses
    # "," (SubRip) for the fraction: "collect a WebVTT timestamp" fails on each.
    "timings-garbage": [],
    # mm:ss.ttt is allowed when the first field is two digits and at most 59.
    "timings-omitted-hours": numbered("text0 text1 text2"),
    # Only the hours field may have a length other than two ("0:00:00.000" is 0 h);
    # every other short field, or "0:00.000" read as hours without seconds, fails.
    "timings-too-short": numbered("text0 text1"),
}


@pytest.mark.parametrize("name", sorted(DERIVED))
def test_derived_from_the_w3c_algorithm(name: str) -> None:
    cues = raw_cues(name)
    got = [(c.identifier, c.start_ms, c.end_ms, cue_text_plain(c.text)) for c in cues]
    assert got == DERIVED[name]


def test_settings_align_follows_the_settings_parser() -> None:
    # The last valid align wins; "CENTER", "middle", "align:" and a bare "align" are
    # invalid and skipped; "align: center" splits into "align:" and "center".
    got = [cue_alignment(c.settings) for c in raw_cues("settings-align")]
    expected = ["center", "start", "center", "end", "left", "right"] + ["end"] * 6 + ["center"]
    assert got == expected


@pytest.mark.parametrize(
    "text",
    ["", "WEBVT", "WEBVTTX", " WEBVTT", "webvtt", "WEBVTT-", "\ufeff\ufeffWEBVTT", "FOO\nWEBVTT"],
)
def test_signature_invalid_rejects_the_file(text: str) -> None:
    # The cases of WPT's signature-invalid.html whose files are not vendored.
    assert parse_webvtt_raw(text).valid is False
    assert parse_webvtt(text).valid is False


def test_cue_text_rendering_removes_tags_and_keeps_voices_ruby_and_references() -> None:
    raw = (
        "<v.loud Esme Hsu>Hi &amp; <b>bye</b></v>\n"
        "<c.yellow>one</c> <i>two</i> <u>three</u> <lang en>four</lang>"
        "<00:00:01.000> <ruby>漢<rt>かん</rt>字<rt>じ</ruby> &lt;b&gt; <x>y</x>"
    )
    assert cue_text_plain(raw) == "Esme Hsu: Hi & bye\none two three four 漢(かん)字(じ) <b> y"


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ("plain", "plain"),
        ("a &lt;&gt;&amp;&nbsp;&lrm;b", "a <>&\xa0\u200eb"),
        ("<v>no name</v>", "no name"),  # an empty voice annotation adds no prefix
        ("<v  A \t  B >x", "A B: x"),  # annotation trimmed, white space collapsed
        ("<v A&amp;B>x", "A&B: x"),  # references decoded in annotations
        ("<rt>r</rt>", "r"),  # rt outside ruby is not ruby text
        ("<ruby>a<rt></rt></ruby>", "a"),  # empty ruby text adds nothing
        ("<ruby>a<rt>b</ruby>c", "a(b)c"),  # </ruby> closes the open rt as well
        ("unclosed <b", "unclosed "),  # a tag cut by the end is still a tag
        ("a<", "a"),
        ("<b>x</i>y</b>", "xy"),  # a mismatched end tag is ignored
        ("<1>x", "x"),  # timestamp-like tags carry no text
    ],
)
def test_cue_text_edge_cases(raw: str, plain: str) -> None:
    assert cue_text_plain(raw) == plain


def test_parse_webvtt_reports_plain_text_language_and_times() -> None:
    text = (
        "\ufeffWEBVTT\r\nKind: captions\r\nLanguage: en_US\r\n\r\n"
        "intro\r\n01:02:03.004 --> 01:02:04.500 align:start\r\n<v Ann>Hello</v>\r\n"
    )
    parsed = parse_webvtt(text)
    assert parsed.valid and parsed.format == "webvtt" and parsed.language == "en-US"
    [cue] = parsed.cues
    assert (cue.identifier, cue.start_ms, cue.end_ms, cue.text) == (
        "intro",
        3_723_004,
        3_724_500,
        "Ann: Hello",
    )


def test_huge_hours_do_not_overflow_integer_conversion() -> None:
    parsed = parse_webvtt_raw(f"WEBVTT\n\n{'9' * 5000}:00:00.000 --> 00:00:01.000\nx\n")
    [cue] = parsed.cues
    assert cue.start_ms > 2**53 and cue.end_ms == 1000


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("WEBVT0123456789:.-> \t\n\r\x00<>/&;vbrutiac"), max_size=300)
)
def test_arbitrary_text_never_raises(body: str) -> None:
    for text in (body, "WEBVTT\n" + body):
        parsed = parse_webvtt(text)
        assert all(isinstance(c.start_ms, int) and c.start_ms >= 0 for c in parsed.cues)
