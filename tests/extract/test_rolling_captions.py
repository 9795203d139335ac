"""Rolling automatic captions come out with each spoken line once, at the time it was
first spoken; ordinary captions that repeat a line on purpose keep it."""

from __future__ import annotations

import pytest

from sosoapi.extract.captions import cues_to_document, parse_caption_bytes
from sosoapi.extract.types import CaptionDocument, CaptionFile
from tests.support.rolling_captions import (
    ARABIC,
    ENGLISH,
    NORWEGIAN,
    rolling_subrip,
    rolling_webvtt,
    spoken_at,
)

LANGUAGES = pytest.mark.parametrize(
    ("lines", "language"), [(ENGLISH, "en"), (NORWEGIAN, "no"), (ARABIC, "ar")], ids=str
)


def document(body: str, media_type: str) -> tuple[CaptionFile, CaptionDocument]:
    parsed = parse_caption_bytes(body.encode(), media_type=media_type, charset=None)
    assert parsed is not None and parsed.valid
    return parsed, cues_to_document(parsed)


@LANGUAGES
def test_automatic_webvtt_says_each_line_once_when_first_spoken(
    lines: tuple[str, ...], language: str
) -> None:
    parsed, doc = document(rolling_webvtt(lines, language), "text/vtt")
    said = "\n".join(cue.text for cue in parsed.cues)
    assert said.count(lines[3]) >= 2  # read cue by cue, the file repeats every line
    assert [s.text for s in doc.segments] == list(lines)
    assert [s.start_ms for s in doc.segments] == [spoken_at(i) for i in range(len(lines))]
    assert doc.text == "\n".join(lines)
    assert parsed.language == language


@LANGUAGES
def test_automatic_captions_converted_to_subrip_fold_too(
    lines: tuple[str, ...], language: str
) -> None:
    _, doc = document(rolling_subrip(lines), "application/x-subrip")
    assert [(s.start_ms, s.text) for s in doc.segments] == [
        (spoken_at(i), line) for i, line in enumerate(lines)
    ]


def test_a_line_said_twice_in_a_row_in_rolling_captions_is_said_twice() -> None:
    lines = (*ENGLISH[:3], "no", "no", *ENGLISH[3:])
    _, doc = document(rolling_webvtt(lines, "en"), "text/vtt")
    assert [s.text for s in doc.segments] == list(lines)


ORDINARY = """WEBVTT

00:00:01.000 --> 00:00:03.000
Nei!

00:00:03.500 --> 00:00:05.000
Nei!

00:00:05.500 --> 00:00:08.000
Jeg sa nei, og jeg mener det.

00:00:09.000 --> 00:00:11.000
♪ Ro, ro, ro din båt ♪

00:00:11.000 --> 00:00:13.000
♪ Ro, ro, ro din båt ♪

00:00:13.500 --> 00:00:16.000
Det var sangen mormor sang.
"""


def test_ordinary_captions_keep_the_lines_they_repeat_on_purpose() -> None:
    parsed, doc = document(ORDINARY, "text/vtt")
    assert [s.text for s in doc.segments] == [c.text for c in parsed.cues]
    assert [s.text for s in doc.segments].count("Nei!") == 2


def test_a_cue_split_at_a_shot_change_is_not_taken_for_rolling() -> None:
    """The same one-line subtitle in consecutive cues (shown again after a cut) stays."""
    body = "".join(
        f"{i + 1}\n00:00:{i:02},000 --> 00:00:{i:02},900\nVi ses i morgen.\n\n" for i in range(8)
    )
    parsed, doc = document(body, "application/x-subrip")
    assert len(doc.segments) == len(parsed.cues) == 8
