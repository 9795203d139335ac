"""Caption files that declare no charset, in the encodings real subtitle files use.

SubRip has no charset declaration and servers rarely send one, so the bytes decide: a BOM,
then strict UTF-8, then detection on the lines that carry words. WebVTT stays UTF-8.
"""

from __future__ import annotations

import charset_normalizer
import pytest

from sosoapi.extract.captions import _cue_lines, parse_caption_bytes
from sosoapi.extract.charset import LEGACY_TRIAL
from tests.support.caption_texts import (
    DENSE_JAPANESE,
    MORE_SAMPLES,
    SAMPLES,
    UTF16_SAMPLES,
    Sample,
    encoded,
    long_sample,
)


def cue_texts(body: bytes, media_type: str | None) -> list[tuple[int, int, str]]:
    parsed = parse_caption_bytes(body, media_type=media_type, charset=None)
    assert parsed is not None and parsed.valid and parsed.format == "subrip"
    return [(cue.start_ms, cue.end_ms, cue.text) for cue in parsed.cues]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: f"{s.language}-{s.codec}")
@pytest.mark.parametrize("media_type", ["application/x-subrip", "text/plain", None])
@pytest.mark.parametrize("newline", ["\r\n", "\n"], ids=["crlf", "lf"])
def test_undeclared_legacy_encoding_decodes_to_the_exact_text(
    sample: Sample, media_type: str | None, newline: str
) -> None:
    body = encoded(sample, newline)
    with pytest.raises(UnicodeDecodeError):
        body.decode("utf-8")  # the file really is in its legacy encoding
    assert cue_texts(body, media_type) == sample.segments()


@pytest.mark.parametrize("sample", UTF16_SAMPLES, ids=lambda s: f"{s.language}-{s.codec}")
@pytest.mark.parametrize("media_type", ["application/x-subrip", "text/plain", None])
def test_utf16_with_a_byte_order_mark_decodes_to_the_exact_text(
    sample: Sample, media_type: str | None
) -> None:
    assert cue_texts(encoded(sample), media_type) == sample.segments()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: f"{s.language}-{s.codec}")
def test_utf8_wins_over_every_legacy_reading(sample: Sample) -> None:
    body = sample.subrip().encode("utf-8")
    assert cue_texts(body, "application/x-subrip") == sample.segments()


def test_a_short_file_is_judged_by_its_words_not_its_timing_lines() -> None:
    """Three cp1251 cues among ASCII indexes and timing lines: judged on the whole body,
    the detector reads them as mac-cyrillic ("¬ этом" for "В этом")."""
    russian = SAMPLES[4]
    short = Sample(russian.language, russian.codec, russian.cues[3:6])
    assert cue_texts(encoded(short), "application/x-subrip") == short.segments()


def test_a_declared_charset_still_wins() -> None:
    japanese = SAMPLES[0]
    body = encoded(japanese)
    parsed = parse_caption_bytes(body, media_type="application/x-subrip", charset="Shift_JIS")
    assert parsed is not None and [c.text for c in parsed.cues] == list(japanese.cues)


def test_webvtt_in_utf8_stays_utf8_whatever_the_label() -> None:
    """W3C file parsing decodes WebVTT as UTF-8; a legacy label must not re-read it."""
    text = SAMPLES[0].cues[0]
    body = f"WEBVTT\n\n00:01.000 --> 00:02.000\n{text}\n".encode()
    parsed = parse_caption_bytes(body, media_type="text/vtt", charset="shift_jis")
    assert parsed is not None and [c.text for c in parsed.cues] == [text]


@pytest.mark.parametrize("sample", SAMPLES + MORE_SAMPLES, ids=lambda s: f"{s.language}-{s.codec}")
def test_a_long_file_in_each_legacy_encoding_decodes_to_the_exact_text(sample: Sample) -> None:
    """An episode's worth of cues (600, 20-40 KB) in the code page of each major script."""
    long = long_sample(sample, 600)
    body = encoded(long)
    assert len(body) > 20_000
    assert cue_texts(body, None) == long.segments()


def test_dense_full_width_punctuation_in_cp932_is_read_when_detection_gives_nothing() -> None:
    """A 25 KB Shift-JIS file of short lines full of …, 　, 。 and 「」: charset-normalizer
    finds no match at all, and the file used to settle `invalid_captions`."""
    long = long_sample(DENSE_JAPANESE, 900)
    body = encoded(long)
    assert len(body) > 25_000
    assert charset_normalizer.from_bytes(_cue_lines(body)).best() is None
    assert cue_texts(body, "application/x-subrip") == long.segments()


@pytest.mark.parametrize("codec", LEGACY_TRIAL)
def test_every_trial_encoding_is_a_codec_python_knows(codec: str) -> None:
    assert "…".encode(codec, errors="replace")
