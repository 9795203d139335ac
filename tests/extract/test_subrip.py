"""SubRip: the two real files from the `srt` project and one hand-made file per leniency."""

from __future__ import annotations

import codecs

import pytest

from sosoapi.extract.captions import parse_caption_bytes
from sosoapi.extract.subrip import parse_subrip
from sosoapi.extract.types import Cue
from tests.extract.conftest import SRT

ASCII_CUES = (
    Cue("2", 27_000, 30_730, "ascii"),
    Cue("4", 31_500, 34_100, "oh look"),
    Cue("6", 34_100, 36_570, "ascii everywhere"),
)


def cues(text: str) -> list[tuple[str, int, int, str]]:
    parsed = parse_subrip(text)
    assert parsed.valid and parsed.format == "subrip"
    return [(c.identifier, c.start_ms, c.end_ms, c.text) for c in parsed.cues]


def test_ascii_file() -> None:
    assert parse_subrip((SRT / "ascii.srt").read_text("ascii")).cues == ASCII_CUES


def test_gb2312_file_is_detected_and_decoded_without_a_declared_charset() -> None:
    parsed = parse_caption_bytes(
        (SRT / "gb2312.srt").read_bytes(), media_type="application/x-subrip", charset=None
    )
    assert parsed is not None and parsed.valid
    assert [c.text for c in parsed.cues] == [
        "宇宙守护神  保护我们远离邪恶",
        "他能徒手抓住子弹  拦住疾速的火车",
        "轻轻一跳就能飞跃高楼",
    ]
    assert [(c.identifier, c.start_ms) for c in parsed.cues] == [
        ("2", 27_000),
        ("4", 31_500),
        ("6", 34_100),
    ]


def test_missing_indexes() -> None:
    text = "00:00:01,000 --> 00:00:02,000\nOne\n\n00:00:03,000 --> 00:00:04,000\nTwo\n"
    assert cues(text) == [("", 1000, 2000, "One"), ("", 3000, 4000, "Two")]


def test_non_numeric_indexes_start_a_block() -> None:
    text = "cue-a\n00:00:01,000 --> 00:00:02,000\nOne\n\nB 2\n00:00:03,000 --> 00:00:04,000\nTwo\n"
    assert cues(text) == [("cue-a", 1000, 2000, "One"), ("B 2", 3000, 4000, "Two")]


def test_dot_or_comma_before_milliseconds_and_fraction_digits_are_decimal() -> None:
    text = "1\n00:00:01.250 --> 00:00:02,5\na\n\n2\n00:00:03,0501 --> 00:00:04.05\nb\n"
    assert cues(text) == [("1", 1250, 2500, "a"), ("2", 3050, 4050, "b")]


def test_missing_milliseconds_and_missing_hours() -> None:
    text = "1\n00:00:01 --> 00:00:02\na\n\n2\n01:05 --> 1:06\nb\n"
    assert cues(text) == [("1", 1000, 2000, "a"), ("2", 65_000, 66_000, "b")]


def test_spaces_around_or_no_spaces_at_the_arrow() -> None:
    text = (
        "1\n  00:00:01,000   -->   00:00:02,000  X1:10 X2:20\na\n\n2\n00:00:03,000->00:00:04,000\nb"
    )
    assert cues(text) == [("1", 1000, 2000, "a"), ("2", 3000, 4000, "b")]


def test_blank_lines_inside_a_cue() -> None:
    text = (
        "1\n00:00:01,000 --> 00:00:02,000\nfirst\n\n\nsecond\n\n"
        "2\n00:00:03,000 --> 00:00:04,000\nb\n"
    )
    assert cues(text) == [("1", 1000, 2000, "first\nsecond"), ("2", 3000, 4000, "b")]


def test_numeric_text_line_without_a_timing_line_after_it_stays_text() -> None:
    text = (
        "1\n00:00:01,000 --> 00:00:02,000\nThe answer is\n\n42\n\n"
        "2\n00:00:03,000 --> 00:00:04,000\nb"
    )
    assert cues(text)[0] == ("1", 1000, 2000, "The answer is\n42")


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
    ],
)
def test_byte_order_marks(bom: bytes, codec: str) -> None:
    body = bom + "1\r\n00:00:01,000 --> 00:00:02,000\r\nÜber\r\n".encode(codec)
    parsed = parse_caption_bytes(body, media_type="application/x-subrip", charset=None)
    assert parsed is not None
    assert parsed.cues == (Cue("1", 1000, 2000, "Über"),)


def test_bom_left_in_decoded_text_is_ignored() -> None:
    assert cues("\ufeff1\n00:00:01,000 --> 00:00:02,000\na") == [("1", 1000, 2000, "a")]


def test_crlf_and_lone_cr_line_ends() -> None:
    text = (
        "1\r\n00:00:01,000 --> 00:00:02,000\r\na\r\nb\r\n\r\n2\r00:00:03,000 --> 00:00:04,000\rc\r"
    )
    assert cues(text) == [("1", 1000, 2000, "a\nb"), ("2", 3000, 4000, "c")]


def test_windows_1252_declared_and_detected() -> None:
    body = (
        "1\r\n00:00:01,000 --> 00:00:02,000\r\nCaf\u00e9 \u201cquoted\u201d \u2013 ok\r\n".encode(
            "cp1252"
        )
    )
    for charset in ("windows-1252", "iso-8859-1", None):
        parsed = parse_caption_bytes(body, media_type="text/srt", charset=charset)
        assert parsed is not None
        assert parsed.cues[0].text == "Caf\u00e9 \u201cquoted\u201d \u2013 ok", charset


def test_styling_tags_are_stripped() -> None:
    text = (
        '1\n00:00:01,000 --> 00:00:02,000\n<i>it</i> <B>bold</B> <u>u</u> <font color="#ff0000">red'
        "</font>\n<font face='x' size=2>f</font> 1 < 2 <3\n"
    )
    assert cues(text)[0][3] == "it bold u red\nf 1 < 2 <3"


def test_override_blocks_are_dropped() -> None:
    text = "1\n00:00:01,000 --> 00:00:02,000\n{\\an8}Top {\\i1}line{\\i0}\n{\\pos(10,20)}x {kept}\n"
    assert cues(text)[0][3] == "Top line\nx {kept}"


def test_cue_ending_before_it_starts_is_kept_by_the_parser() -> None:
    assert cues("1\n00:00:05,000 --> 00:00:01,000\nbackwards") == [("1", 5000, 1000, "backwards")]


@pytest.mark.parametrize("text", ["", "hello\nworld", "1\n00:00:01 to 00:00:02\nx", "WEBVTT\n\n"])
def test_nothing_subrip_like_is_invalid(text: str) -> None:
    parsed = parse_subrip(text)
    assert parsed.valid is False and parsed.cues == ()


def test_character_references_are_decoded_as_players_show_them() -> None:
    text = (
        "1\n00:00:01,000 --> 00:00:02,000\nTom &amp; Jerry &#39;94 &ndash; caf&eacute;&nbsp;ok\n"
        "&lt;i&gt; is how you write italics\n"
    )
    assert (
        cues(text)[0][3] == "Tom & Jerry '94 \u2013 caf\u00e9\u00a0ok\n<i> is how you write italics"
    )


def test_span_and_other_html_tags_are_stripped_and_br_breaks_the_line() -> None:
    text = (
        '1\n00:00:01,000 --> 00:00:02,000\n<span style="color:#ffff00">Where are you?</span>'
        "<br>I'm <em>here</em>.<br/>Come <SPAN class=x>now</SPAN>! 1 < 2 <3\n"
    )
    assert cues(text)[0][3] == "Where are you?\nI'm here.\nCome now! 1 < 2 <3"
