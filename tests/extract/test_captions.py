"""Format sniffing, decoding and the cue-to-segment mapping with its reason codes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sosoapi.extract.captions import (
    MAX_MS,
    cues_to_document,
    parse_caption_bytes,
    sniff_caption_format,
)
from sosoapi.extract.limits import SEGMENT_TEXT_MAX, SEGMENTS_MAX, TEXT_MAX
from sosoapi.extract.types import CaptionDocument, CaptionFile, Cue

VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhello\n"
SRT = "1\n00:00:01,000 --> 00:00:02,000\nhello\n"


def doc(*cues: Cue, language: str | None = None) -> CaptionDocument:
    return cues_to_document(CaptionFile("webvtt", True, tuple(cues), language))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (VTT, "webvtt"),
        ("\ufeffWEBVTT", "webvtt"),
        ("WEBVTT\tcomment\r\n", "webvtt"),
        (SRT, "subrip"),
        ("\n\n00:00:01,000 --> 00:00:02,000\nhi", "subrip"),
        ("Chapter 1\n00:00:01.000 --> 00:00:02.000\nhi", "subrip"),
        ("WEBVTTX\n", None),
        ("Just a text file.\nIt mentions a --> b.\n", None),
        ("intro\nmore\n00:00:01,000 --> 00:00:02,000\n", None),  # timing too far down
        ("", None),
    ],
)
def test_sniff_caption_format(text: str, expected: str | None) -> None:
    assert sniff_caption_format(text) == expected


@pytest.mark.parametrize(
    ("body", "media_type", "fmt", "valid"),
    [
        (VTT, "text/vtt", "webvtt", True),
        (SRT, "application/x-subrip", "subrip", True),
        (SRT, "application/srt", "subrip", True),
        (SRT, "text/srt", "subrip", True),
        (VTT, "text/plain", "webvtt", True),
        (SRT, None, "subrip", True),
        (SRT, "text/vtt", "subrip", True),  # content wins over a wrong label
        (VTT, "application/x-subrip", "webvtt", True),
        ("not captions at all", "text/vtt", "webvtt", False),
        ("not captions at all", "text/srt", "subrip", False),
    ],
)
def test_parse_caption_bytes_chooses_the_parser(
    body: str, media_type: str | None, fmt: str, valid: bool
) -> None:
    parsed = parse_caption_bytes(body.encode(), media_type=media_type, charset=None)
    assert parsed is not None
    assert (parsed.format, parsed.valid) == (fmt, valid)
    if valid:
        assert [c.text for c in parsed.cues] == ["hello"]


@pytest.mark.parametrize("media_type", ["text/plain", None, "application/octet-stream"])
def test_plain_text_that_is_no_caption_file_is_none(media_type: str | None) -> None:
    body = b"Dear reader,\nthis is a letter.\n"
    assert parse_caption_bytes(body, media_type=media_type, charset=None) is None


def test_declared_charset_is_used_for_webvtt() -> None:
    body = "WEBVTT\n\n00:01.000 --> 00:02.000\nÀ bientôt\n".encode("latin-1")
    parsed = parse_caption_bytes(body, media_type="text/vtt", charset="ISO-8859-1")
    assert parsed is not None and parsed.cues[0].text == "À bientôt"


def test_mapping_keeps_valid_cues_and_joins_text() -> None:
    result = doc(Cue("", 0, 1500, "  one  "), Cue("a", 1500, 3000, "two\nlines"), language="en")
    assert [(s.start_ms, s.end_ms, s.text) for s in result.segments] == [
        (0, 1500, "one"),
        (1500, 3000, "two\nlines"),
    ]
    assert result.text == "one\ntwo\nlines"
    assert (result.format, result.language, result.conditions) == ("webvtt", "en", ())


@pytest.mark.parametrize(
    "bad",
    [
        Cue("", 1000, 1000, "zero length"),
        Cue("", 2000, 1000, "backwards"),
        Cue("", 0, MAX_MS + 1, "too late"),
        Cue("", 0, 1000, " \n\t "),
        Cue("", 0, 1000, ""),
    ],
)
def test_invalid_cues_are_dropped_with_a_reason(bad: Cue) -> None:
    result = doc(Cue("", 0, 1000, "ok"), bad, bad)
    assert [s.text for s in result.segments] == ["ok"]
    assert result.conditions == ("invalid_cues",)


def test_the_largest_safe_time_is_kept() -> None:
    result = doc(Cue("", MAX_MS - 1, MAX_MS, "edge"))
    assert result.segments[0].end_ms == MAX_MS and result.conditions == ()


def test_every_cue_dropped_leaves_no_segments_and_the_reason() -> None:
    result = doc(Cue("", 5, 1, "x"))
    assert result.segments == () and result.text == "" and result.conditions == ("invalid_cues",)


def test_long_cue_is_cut_with_text_limited() -> None:
    long = ("word " * 5000).strip()  # 24,999 characters
    result = doc(Cue("", 0, 1000, long))
    [segment] = result.segments
    assert 0 < len(segment.text) <= SEGMENT_TEXT_MAX
    assert long.startswith(segment.text)
    assert result.conditions == ("text_limited",)


def test_more_than_the_segment_bound_keeps_the_first_ones() -> None:
    many = [Cue("", i * 10, i * 10 + 5, f"c{i}") for i in range(SEGMENTS_MAX + 5)]
    result = doc(*many)
    assert len(result.segments) == SEGMENTS_MAX
    assert result.segments[-1].text == f"c{SEGMENTS_MAX - 1}"
    assert result.conditions == ("cues_limited",)


def test_joined_text_is_cut_but_segments_stay_whole() -> None:
    cues = [Cue("", i * 10, i * 10 + 5, "x" * 99) for i in range(300)]  # 30,000 chars
    result = doc(*cues)
    assert len(result.segments) == 300
    assert all(s.text == "x" * 99 for s in result.segments)
    assert len(result.text) <= TEXT_MAX and result.text.startswith("x" * 99 + "\n")
    assert result.conditions == ("text_limited",)


def test_conditions_are_listed_once_in_order_observed() -> None:
    cues = [Cue("", 2, 1, "bad"), Cue("", 0, 1, "y" * 25_000)]
    cues += [Cue("", 0, 1, "ok")] * SEGMENTS_MAX
    assert doc(*cues).conditions == ("invalid_cues", "text_limited", "cues_limited")


def check_bounds(document: CaptionDocument) -> None:
    assert len(document.segments) <= SEGMENTS_MAX
    assert len(document.text) <= TEXT_MAX
    assert len(set(document.conditions)) == len(document.conditions)
    for segment in document.segments:
        assert 1 <= len(segment.text) <= SEGMENT_TEXT_MAX
        assert segment.text == segment.text.strip()
        assert 0 <= segment.start_ms < segment.end_ms <= MAX_MS


caption_like = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "WEBVTT",
                "WEBVTT\ufeff",
                "",
                "\r\n",
                "-->",
                "00:00:01.000 --> 00:00:02.000",
                "00:00:02,000 --> 00:00:01,000 ",
                "9999999999:00:00.000 --> 99999999999:00:00.000",
                "1",
                "NOTE x",
                "STYLE",
                "<v Bob>hi</v>&amp;<ruby>a<rt>b",
                "{\\an8}<i>x</i>",
            ]
        ),
        st.text(max_size=40),
    ),
    max_size=40,
).map("\n".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(caption_like, st.sampled_from(["text/vtt", "text/srt", "text/plain", None]))
def test_arbitrary_text_never_raises_and_stays_bounded(text: str, media_type: str | None) -> None:
    for charset in ("utf-8", None):
        parsed = parse_caption_bytes(text.encode(), media_type=media_type, charset=charset)
        if parsed is not None:
            check_bounds(cues_to_document(parsed))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.sampled_from(["text/vtt", "application/x-subrip", None]))
def test_arbitrary_bytes_never_raise_and_stay_bounded(body: bytes, media_type: str | None) -> None:
    for prefix in (b"", b"WEBVTT\n\n", b"1\n00:00:01,000 --> 00:00:02,000\n"):
        parsed = parse_caption_bytes(prefix + body, media_type=media_type, charset=None)
        if parsed is not None:
            check_bounds(cues_to_document(parsed))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.builds(
            Cue,
            st.text(max_size=3),
            st.integers(min_value=-5, max_value=2**60),
            st.integers(min_value=-5, max_value=2**60),
            st.text(max_size=30),
        ),
        max_size=30,
    )
)
def test_mapping_of_arbitrary_cues_stays_bounded(cues: list[Cue]) -> None:
    check_bounds(doc(*cues))


def test_large_file_stays_bounded() -> None:
    text = "WEBVTT\n\n" + "".join(
        f"00:{i // 60 % 60:02d}:{i % 60:02d}.000 --> 00:{i // 60 % 60:02d}:{i % 60:02d}.500\n"
        f"{'z' * 30} {i}\n\n"
        for i in range(3000)
    )
    parsed = parse_caption_bytes(text.encode(), media_type="text/vtt", charset=None)
    assert parsed is not None and len(parsed.cues) == 3000
    document = cues_to_document(parsed)
    check_bounds(document)
    # 1,000 segments of about 35 characters pass 20,000: the joined text is cut too.
    assert document.conditions == ("cues_limited", "text_limited")


def test_the_evidence_keeps_every_cue_up_to_its_bounds() -> None:
    """The receipt keeps 1,000 cues; the whole keeps CUES_WHOLE_MAX, within `whole_max`."""
    from sosoapi.extract.limits import CUES_WHOLE_MAX

    cues = [Cue("", i * 10, i * 10 + 5, f"c{i}") for i in range(CUES_WHOLE_MAX + 5)]
    result = cues_to_document(CaptionFile("webvtt", True, tuple(cues)), 1_000_000)
    assert len(result.segments) == SEGMENTS_MAX and result.whole_segments is not None
    assert len(result.whole_segments) == CUES_WHOLE_MAX
    assert result.whole_text == "\n".join(f"c{i}" for i in range(CUES_WHOLE_MAX))
    assert result.conditions == ("cues_limited",)
    bounded = cues_to_document(CaptionFile("webvtt", True, tuple(cues)), 25_000)
    assert bounded.whole_text is not None and len(bounded.whole_text) <= 25_000
    assert bounded.whole_segments is not None and len(bounded.whole_segments) < CUES_WHOLE_MAX
    small = doc(Cue("", 0, 5, "only"))
    assert small.whole_segments is None and small.whole_text is None  # nothing was cut
