"""Rolling captions folded so that each spoken line appears once.

Automatic captions (YouTube's, and files converted from them) roll: every cue shows the
line spoken before it and adds the next one, with a 10 ms cue between that shows the
finished line alone, so a transcript read cue by cue says every line 2.6-2.8 times. A file
rolls when many cues open with the last line of the cue before and add one under it;
then each cue keeps only the lines it adds, at the time the cue starts (when the line was
first spoken), and a cue that adds nothing goes. A file that does not roll is left as it
is, so ordinary captions that repeat a line on purpose keep it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from sosoapi.extract.types import Cue

# Of the consecutive cue pairs that both have text, at least this share must roll: the
# later cue opens with the earlier one's last line and adds a line under it (a rolling file
# with 10 ms cues: half the pairs, without them nearly all; an ordinary file: almost none,
# since a line shown again alone, a refrain or a cue split at a shot change, adds nothing).
_ROLL_SHARE = 0.4
_MIN_PAIRS = 3


def fold_rolling(cues: Sequence[Cue]) -> tuple[Cue, ...] | None:
    """The cues with each line once when the file rolls, else None (leave it as it is)."""
    lines = [_lines(cue.text) for cue in cues]
    if not _rolls(lines):
        return None
    folded: list[Cue] = []
    shown: list[str] = []  # the lines on screen at the end of the previous cue
    for cue, current in zip(cues, lines, strict=True):
        if not current:
            folded.append(cue)  # not a line of speech: the mapping step judges it
            continue
        added = current[_carried(shown, current) :]
        if added:
            folded.append(Cue(cue.identifier, cue.start_ms, cue.end_ms, "\n".join(added)))
        shown = current
    return tuple(folded)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


def _rolls(lines: list[list[str]]) -> bool:
    pairs = [(a, b) for a, b in pairwise(lines) if a and b]
    if len(pairs) < _MIN_PAIRS:
        return False
    rolled = sum(1 for before, after in pairs if len(after) > 1 and after[0] == before[-1])
    return rolled >= _ROLL_SHARE * len(pairs)


def _carried(shown: list[str], current: list[str]) -> int:
    """How many of `current`'s first lines are the last lines still on screen."""
    for count in range(min(len(shown), len(current)), 0, -1):
        if current[:count] == shown[-count:]:
            return count
    return 0
