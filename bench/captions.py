"""Caption parsing: throughput on a 10,000-cue file and WPT conformance, against peers.

Run: .venv/bin/python bench/captions.py [--cues N] [--repeats R]

Peers measured in the same run: webvtt-py (WebVTT) and `srt` (SubRip). Throughput is
cues per second of CPU time for the best of R runs, parsing the same generated file and
reading every cue's text (webvtt-py renders text lazily, so reading it is part of the
work). Conformance: how many of the transcribed WPT expectations in
tests/data/captions/wpt-file-parsing/expectations-subset.json each parser meets, every
parser given the same decoded text. For settings-line the expectation was transcribed
from the upstream WPT file, which is the vendored one minus one block (see
tests/data/captions/README.md); every parser gets that upstream text.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import srt
import webvtt

from sosoapi.extract.subrip import parse_subrip
from sosoapi.extract.webvtt import cue_alignment, cue_text_plain, parse_webvtt, parse_webvtt_raw

WPT = Path(__file__).resolve().parent.parent / "tests" / "data" / "captions" / "wpt-file-parsing"
EXTRA_SETTINGS_LINE_BLOCK = "00:00:00.000 --> 00:00:01.000 line:100%,\ninvalid37\n\n"

# (identifier, start seconds, end seconds, plain text, align)
Row = tuple[str, float, float, str, str]


def clock(ms: int, sep: str) -> str:
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{sep}{millis:03d}"


def cue_lines(i: int) -> list[str]:
    """Realistic variety: plain lines, two-line cues, voices, italics, references."""
    if i % 10 == 0:
        return [f"<v Speaker {i % 3}>Line {i} from a speaker</v>"]
    if i % 7 == 0:
        return [f"<i>Italic</i> cue {i} &amp; more", "second line of the cue"]
    return [f"Caption number {i}, an ordinary sentence of subtitle text."]


def generated(count: int) -> tuple[str, str]:
    vtt, sub = ["WEBVTT", ""], []
    for i in range(count):
        start, end = i * 2000, i * 2000 + 1500
        lines = cue_lines(i)
        vtt += [str(i + 1), f"{clock(start, '.')} --> {clock(end, '.')}", *lines, ""]
        plain = [line.replace("<v ", "<font ").replace("</v>", "</font>") for line in lines]
        sub += [str(i + 1), f"{clock(start, ',')} --> {clock(end, ',')}", *plain, ""]
    return "\n".join(vtt), "\n".join(sub)


def ours_vtt(text: str) -> int:
    return sum(1 for cue in parse_webvtt(text).cues if cue.text is not None)


def webvtt_py(text: str) -> int:
    return sum(1 for cue in webvtt.from_string(text).captions if cue.text is not None)


def ours_srt(text: str) -> int:
    return sum(1 for cue in parse_subrip(text).cues if cue.text is not None)


def srt_lib(text: str) -> int:
    return sum(1 for sub in srt.parse(text) if sub.content is not None)


def throughput(parse: Callable[[str], int], text: str, repeats: int) -> tuple[int, float]:
    best = float("inf")
    count = 0
    for _ in range(repeats):
        started = time.process_time()
        count = parse(text)
        best = min(best, time.process_time() - started)
    return count, count / best


# --- conformance ----------------------------------------------------------------------


def rows_ours(text: str) -> list[Row]:
    parsed = parse_webvtt_raw(text)
    if not parsed.valid:
        raise ValueError("signature rejected")
    return [
        (
            c.identifier,
            c.start_ms / 1000,
            c.end_ms / 1000,
            cue_text_plain(c.text),
            cue_alignment(c.settings),
        )
        for c in parsed.cues
    ]


def rows_webvtt_py(text: str) -> list[Row]:
    return [
        (
            c.identifier or "",
            c.start_time.in_milliseconds() / 1000,
            c.end_time.in_milliseconds() / 1000,
            c.text,
            getattr(c.settings, "align", None) or _align_from(str(c.settings or "")),
        )
        for c in webvtt.from_string(text).captions
    ]


def _align_from(settings: str) -> str:
    return next((s[6:] for s in reversed(settings.split()) if s.startswith("align:")), "center")


def rows_srt(text: str) -> list[Row]:
    return [
        (str(s.index), s.start.total_seconds(), s.end.total_seconds(), s.content, "center")
        for s in srt.parse(text)
    ]


PER_CUE = {
    "id=='' and text=='text'+i for i in 0..5": lambda i, row: row[0] == "" and row[3] == f"text{i}"
}


def meets(expect: dict[str, Any], rows: list[Row]) -> bool:
    checks = [len(rows) == expect["cues_length"]]
    fields = {"id": 0, "startTime": 1, "endTime": 2, "text": 3, "align": 4}
    for index, want in enumerate(expect.get("cues", [])):
        for key, value in want.items():
            checks.append(index < len(rows) and rows[index][fields[key]] == value)
    if "ids" in expect:
        checks.append([r[0] for r in rows] == expect["ids"])
    if "times" in expect:
        checks.append([[r[1], r[2]] for r in rows] == expect["times"])
    if "per_cue" in expect:
        checks.append(all(PER_CUE[expect["per_cue"]](i, r) for i, r in enumerate(rows)))
    return all(checks)


def conformance(rows_of: Callable[[str], list[Row]]) -> tuple[int, int]:
    expectations = json.loads((WPT / "expectations-subset.json").read_text("utf-8"))
    met = total = 0
    for name, expect in expectations.items():
        path = WPT / f"{name}.vtt"
        if not path.exists():
            continue
        text = path.read_bytes().decode("utf-8-sig").replace(EXTRA_SETTINGS_LINE_BLOCK, "")
        total += 1
        try:
            met += meets(expect, rows_of(text))
        except Exception:  # a peer that raises on a file fails that file
            continue
    return met, total


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--cues", type=int, default=10_000)
    options.add_argument("--repeats", type=int, default=5)
    args = options.parse_args()
    vtt_text, srt_text = generated(args.cues)
    rows = []
    for label, parse, text, rows_of in (
        ("sosoapi parse_webvtt", ours_vtt, vtt_text, rows_ours),
        ("webvtt-py 0.6 from_string", webvtt_py, vtt_text, rows_webvtt_py),
        ("sosoapi parse_subrip", ours_srt, srt_text, None),
        ("srt 3.5 parse", srt_lib, srt_text, rows_srt),
    ):
        count, rate = throughput(parse, text, args.repeats)
        met = conformance(rows_of) if rows_of else None
        rows.append((label, count, rate, met))
    base = {"vtt": rows[1][2], "srt": rows[3][2]}
    print(f"{'parser':28} {'cues':>6} {'cues/s':>10} {'vs peer':>8}  WPT expectations met")
    for index, (label, count, rate, met) in enumerate(rows):
        peer = base["vtt"] if index < 2 else base["srt"]
        wpt = f"{met[0]}/{met[1]}" if met else "n/a (SubRip)"
        print(f"{label:28} {count:>6} {rate:>10,.0f} {rate / peer:>7.2f}x  {wpt}")


if __name__ == "__main__":
    main()
