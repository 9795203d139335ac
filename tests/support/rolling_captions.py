"""Automatic captions in the structure YouTube serves them (`fmt=vtt`, as yt-dlp saves them).

Each spoken line is one cue of two lines: the line before (still on screen) and the new
line with inline word timings (`word<00:00:01.240><c> next</c>`); between two such cues a
10 ms cue shows the finished line alone above a line holding one space. The header says
`Kind: captions` and the language; every cue carries `align:start position:0%`.
"""

from __future__ import annotations

ENGLISH = (
    "hey everyone welcome back to the channel",
    "today we're going to look at how tides work",
    "and why there are two high tides every day",
    "the moon pulls on the ocean closest to it",
    "but it also pulls on the earth itself",
    "so the water on the far side gets left behind",
    "that's why you see a bulge on both sides",
    "so let's get into it",
)
NORWEGIAN = (
    "hei og velkommen til denne videoen",
    "i dag skal vi snakke om hvordan flo og fjære fungerer",
    "og hvorfor det er to høyvann hver dag",
    "månen trekker på havet som er nærmest den",
    "men den trekker også på selve jorda",
    "så vannet på den andre siden blir liggende igjen",
    "derfor får vi en bule på begge sider",
    "så la oss sette i gang",
)
ARABIC = (
    "مرحبا بكم جميعا في هذه الحلقة",
    "اليوم سنتحدث عن كيفية حدوث المد والجزر",
    "ولماذا يحدث المد مرتين في اليوم",
    "القمر يجذب مياه المحيط القريبة منه",
    "لكنه يجذب الأرض نفسها أيضا",
    "فتبقى المياه في الجهة الأخرى في مكانها",
    "ولهذا نرى انتفاخا في الجهتين",
    "فلنبدأ الآن",
)

_LINE_MS = 2_800
_WORD_MS = 320
_FLASH_MS = 10


def _ts(ms: int) -> str:
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{hours:02}:{minutes:02}:{seconds:02}.{millis:03}"


def _timed(line: str, start: int) -> str:
    """The line with YouTube's inline word timings after its first word."""
    first, *rest = line.split(" ")
    words = [first]
    for index, word in enumerate(rest, start=1):
        words.append(f"<{_ts(start + index * _WORD_MS)}><c> {word}</c>")
    return "".join(words)


def spoken_at(index: int) -> int:
    """When line `index` is first spoken (its rolling cue's start)."""
    return 600 + index * (_LINE_MS + _FLASH_MS)


def rolling_webvtt(lines: tuple[str, ...], language: str) -> str:
    blocks = [f"WEBVTT\nKind: captions\nLanguage: {language}\n"]
    for index, line in enumerate(lines):
        start = spoken_at(index)
        end = start + _LINE_MS
        above = lines[index - 1] if index else " "
        blocks.append(
            f"{_ts(start)} --> {_ts(end)} align:start position:0%\n{above}\n{_timed(line, start)}\n"
        )
        blocks.append(f"{_ts(end)} --> {_ts(end + _FLASH_MS)} align:start position:0%\n{line}\n \n")
    return "\n".join(blocks)


def rolling_subrip(lines: tuple[str, ...]) -> str:
    """The same captions as converters write them to SubRip: word timings gone, the
    rolling cues and the 10 ms cues kept."""
    blocks = []
    for index, line in enumerate(lines):
        start = spoken_at(index)
        end = start + _LINE_MS
        above = f"{lines[index - 1]}\n" if index else ""
        for cue, (a, b, text) in enumerate(
            ((start, end, f"{above}{line}"), (end, end + _FLASH_MS, line))
        ):
            number = 2 * index + cue + 1
            times = f"{_ts(a).replace('.', ',')} --> {_ts(b).replace('.', ',')}"
            blocks.append(f"{number}\n{times}\n{text}\n")
    return "\n".join(blocks)
