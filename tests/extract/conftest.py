"""Paths to the caption conformance data copied into tests/data/captions."""

from __future__ import annotations

from pathlib import Path

CAPTIONS = Path(__file__).resolve().parent.parent / "data" / "captions"
WPT = CAPTIONS / "wpt-file-parsing"
SRT = CAPTIONS / "srt"


def wpt_text(name: str) -> str:
    """A WPT file as a browser hands it to the parser: UTF-8 decoded, BOM removed."""
    return (WPT / f"{name}.vtt").read_bytes().decode("utf-8-sig")
