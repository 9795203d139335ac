"""Align two sequences of hashable items in near-linear time, with a bound (pure, no I/O).

Why: difflib's `SequenceMatcher` without its junk heuristic is quadratic (two 20,000
character revisions of unrelated words took ~32 s). Here, after the common prefix (and,
for regions past step 1, the common suffix):

1. Myers' O(ND) search finds a shortest edit script when it needs at most `EDIT_BOUND`
   edits, so ordinary diffs (few changes) are minimal.
2. Past that, items that occur once in each side (patience anchors, longest increasing
   run of their positions; failing those, runs of `RUN` items that occur once) split the
   region; each gap is aligned the same way, and a gap with no anchor is tried with Myers
   up to `GAP_BOUND` edits.
3. A gap with no anchor and more edits than the bound, or any gap once the work budget
   (`WORK_PER_ITEM` per item) is spent, is one replace: `coarse` counts those regions
   (a gap whose sides share no item is one replace too, but exact, so not counted).

The result is always a correct edit script: applying it to `a` gives `b`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

EDIT_BOUND = 128  # edits Myers may spend on the whole texts before anchors are used
GAP_BOUND = 32  # and on a gap between anchors that has no anchor of its own
RUN = 8  # items in a run used as an anchor when no single item is (4 words, 4 spaces)
WORK_PER_ITEM = 48  # item steps allowed per item of both sides (and a floor, below)
WORK_FLOOR = 200_000
Block = tuple[int, int, int]  # a[i : i + size] == b[j : j + size]
Opcode = tuple[str, int, int, int, int]  # difflib's (tag, i1, i2, j1, j2)


@dataclass(frozen=True, slots=True)
class Alignment:
    """Matching blocks in order, the opcodes they imply, the coarse regions (one replace
    each, past the bound), and the item steps spent (what the bound limits)."""

    blocks: tuple[Block, ...]
    opcodes: tuple[Opcode, ...]
    coarse: int
    work: int


class _Meter:
    """Work spent so far against the budget; once spent, regions are left coarse."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.work = 0

    def spent(self) -> bool:
        return self.work > self.budget


def align(a: Sequence[Hashable], b: Sequence[Hashable]) -> Alignment:
    """Blocks and opcodes from `a` to `b` (see the module doc for the bound)."""
    ids: dict[Hashable, int] = {}
    ia = [ids.setdefault(x, len(ids)) for x in a]
    ib = [ids.setdefault(x, len(ids)) for x in b]
    meter = _Meter(max(WORK_FLOOR, WORK_PER_ITEM * (len(ia) + len(ib))))
    blocks: list[Block] = []
    coarse = 0
    stack = [(0, len(ia), 0, len(ib), True)]
    while stack:
        a0, a1, b0, b1, first = stack.pop()
        a0, a1, b0, b1 = _strip(ia, ib, (a0, a1, b0, b1), not first, blocks, meter)
        if a0 == a1 or b0 == b1:
            continue
        found = _solve(ia, ib, (a0, a1, b0, b1), first, meter)
        if found is None:
            coarse += 1
        elif isinstance(found, list):
            blocks.extend(found)
        else:
            stack.extend(found.gaps)
    ordered = _merged(sorted(blocks))
    return Alignment(tuple(ordered), _opcodes(ordered, len(ia), len(ib)), coarse, meter.work)


@dataclass(frozen=True, slots=True)
class _Split:
    gaps: list[tuple[int, int, int, int, bool]]


def _solve(
    ia: list[int], ib: list[int], region: tuple[int, int, int, int], first: bool, meter: _Meter
) -> list[Block] | _Split | None:
    """Blocks of a region (Myers), its gaps around anchors, or None: leave it coarse."""
    a0, a1, b0, b1 = region
    if meter.spent():
        return None
    bound = EDIT_BOUND if first else GAP_BOUND
    if (a1 - a0) + (b1 - b0) <= GAP_BOUND:
        return _myers(ia, ib, region, GAP_BOUND, meter)  # cannot need more edits
    fewest = _fewest_edits(ia, ib, region, meter)
    if fewest == (a1 - a0) + (b1 - b0):
        return []  # nothing in common: one replace is the shortest script, not coarse
    hopeful = fewest <= bound
    if first and hopeful:
        found = _myers(ia, ib, region, bound, meter)
        if found is not None:
            return found
    anchors = _anchors(ia, ib, region, meter)
    if anchors:
        return _Split(_gaps(anchors, region))
    if first or not hopeful:
        return None  # past the bound, or Myers already gave up on this region
    return _myers(ia, ib, region, bound, meter)


def _fewest_edits(
    ia: list[int], ib: list[int], region: tuple[int, int, int, int], meter: _Meter
) -> int:
    """A lower bound on a region's edits: the items of each side the other cannot match
    (counted as multisets), so a hopeless Myers search is never started."""
    a0, a1, b0, b1 = region
    meter.work += (a1 - a0) + (b1 - b0)
    left = Counter(ia[a0:a1])
    left.subtract(ib[b0:b1])
    surplus = sum(c for c in left.values() if c > 0)  # of a, unmatched in b
    return 2 * surplus + (b1 - b0) - (a1 - a0)


def _strip(
    ia: list[int],
    ib: list[int],
    region: tuple[int, int, int, int],
    suffix: bool,
    blocks: list[Block],
    meter: _Meter,
) -> tuple[int, int, int, int]:
    """Take the common prefix (and suffix) of a region as blocks; the rest is returned.

    The whole texts keep their suffix: Myers' forward search then places an insert or
    delete that could shift as late as it goes ("in late May" inserts "late ", as difflib
    did), where taking the suffix first would shift it early (" late").
    """
    a0, a1, b0, b1 = region
    i, j = a0, b0
    while i < a1 and j < b1 and ia[i] == ib[j]:
        i, j = i + 1, j + 1
    if i > a0:
        blocks.append((a0, b0, i - a0))
    k, m = a1, b1
    while suffix and k > i and m > j and ia[k - 1] == ib[m - 1]:
        k, m = k - 1, m - 1
    if k < a1:
        blocks.append((k, m, a1 - k))
    meter.work += (i - a0) + (a1 - k) + 1
    return i, k, j, m


def _myers(
    ia: list[int], ib: list[int], region: tuple[int, int, int, int], bound: int, meter: _Meter
) -> list[Block] | None:
    """A shortest edit script's matching blocks, or None past `bound` edits.

    Forward greedy search (Myers 1986): `v[k]` is the furthest x reached on diagonal
    k = x - y; each round's copy is kept to walk the path back.
    """
    a0, a1, b0, b1 = region
    n, m = a1 - a0, b1 - b0
    top = min(bound, n + m)
    off = top + 1
    v = [-1] * (2 * top + 3)
    trace: list[list[int]] = []
    for d in range(top + 1):
        lo = -d if d <= m else -m + (d - m) % 2
        hi = d if d <= n else n - (d - n) % 2
        for k in range(lo, hi + 1, 2):
            x = 0 if d == 0 else _start(v, off, k, n, m)[0]
            if x < 0:
                continue
            y, x0 = x - k, x
            while x < n and y < m and ia[a0 + x] == ib[b0 + y]:
                x, y = x + 1, y + 1
            meter.work += x - x0 + 1
            v[off + k] = x
            if x >= n and y >= m:
                trace.append(v[:])
                return _path(trace, off, n, m, a0, b0)
        trace.append(v[:])
    return None


def _start(v: list[int], off: int, k: int, n: int, m: int) -> tuple[int, bool]:
    """Where round d starts on diagonal k: down from k + 1 (an insert, True) or right from
    k - 1 (a delete), whichever valid move reaches further; (-1, False) when neither."""
    down, right = v[off + k + 1], v[off + k - 1]
    down_ok = down >= 0 and down - k <= m
    right_ok = right >= 0 and right + 1 <= n
    if down_ok and (not right_ok or right < down):
        return down, True
    if right_ok:
        return right + 1, False
    return -1, False


def _path(trace: list[list[int]], off: int, n: int, m: int, a0: int, b0: int) -> list[Block]:
    """Walk the kept rounds back from (n, m) and return the diagonal runs as blocks."""
    blocks: list[Block] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        k = x - y
        start, down = _start(trace[d - 1], off, k, n, m)
        sx, sy = start, start - k  # where the snake of round d began
        if x > sx:
            blocks.append((a0 + sx, b0 + sy, x - sx))
        x, y = (start, sy - 1) if down else (start - 1, sy)
    if x > 0:
        blocks.append((a0, b0, x))
    blocks.reverse()
    return blocks


def _anchors(
    ia: list[int], ib: list[int], region: tuple[int, int, int, int], meter: _Meter
) -> list[tuple[int, int]]:
    """Positions (i, j) of items found once in each side, the longest run increasing in
    both; when no item is, runs of `RUN` items found once (common words repeat, but four
    words in a row rarely do)."""
    for size in (1, RUN):
        meter.work += size * ((region[1] - region[0]) + (region[3] - region[2]))
        once_a = _once(ia, region[0], region[1], size)
        once_b = _once(ib, region[2], region[3], size)
        pairs = sorted((i, once_b[x]) for x, i in once_a.items() if x in once_b)
        if pairs:
            return _increasing(pairs)
    return []


def _once(ids: list[int], lo: int, hi: int, size: int) -> dict[object, int]:
    """Run of `size` items -> its start, for the runs found exactly once in ids[lo:hi]."""
    seen: dict[object, int] = {}
    for p in range(lo, hi - size + 1):
        x = ids[p] if size == 1 else tuple(ids[p : p + size])
        seen[x] = -1 if x in seen else p
    return {x: p for x, p in seen.items() if p >= 0}


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of pairs (sorted by i) whose j increase too (patience sorting)."""
    tails: list[int] = []  # j of the last pair of the best run of each length
    ends: list[int] = []  # index into pairs of that pair
    back = [-1] * len(pairs)
    for p, (_, j) in enumerate(pairs):
        at = bisect_left(tails, j)
        back[p] = ends[at - 1] if at else -1
        if at == len(tails):
            tails.append(j)
            ends.append(p)
        else:
            tails[at], ends[at] = j, p
    run: list[tuple[int, int]] = []
    p = ends[-1] if ends else -1
    while p >= 0:
        run.append(pairs[p])
        p = back[p]
    return run[::-1]


def _gaps(
    anchors: list[tuple[int, int]], region: tuple[int, int, int, int]
) -> list[tuple[int, int, int, int, bool]]:
    """The regions between anchors (each anchor an item of its own, matched by the
    next gap's prefix), left to right."""
    a0, a1, b0, b1 = region
    gaps, i0, j0 = [], a0, b0
    for i, j in anchors:
        gaps.append((i0, i, j0, j, False))
        i0, j0 = i, j  # the anchor leads the next gap: its prefix takes it
    gaps.append((i0, a1, j0, b1, False))
    return gaps


def _merged(blocks: list[Block]) -> list[Block]:
    """Adjacent blocks joined, empty ones dropped."""
    out: list[Block] = []
    for i, j, size in blocks:
        if not size:
            continue
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            pi, pj, ps = out[-1]
            out[-1] = (pi, pj, ps + size)
        else:
            out.append((i, j, size))
    return out


def _opcodes(blocks: list[Block], n: int, m: int) -> tuple[Opcode, ...]:
    """difflib's opcodes from ordered matching blocks over a[:n] and b[:m]."""
    out: list[Opcode] = []
    i = j = 0
    for bi, bj, size in [*blocks, (n, m, 0)]:
        if i < bi and j < bj:
            out.append(("replace", i, bi, j, bj))
        elif i < bi:
            out.append(("delete", i, bi, j, bj))
        elif j < bj:
            out.append(("insert", i, bi, j, bj))
        if size:
            out.append(("equal", bi, bi + size, bj, bj + size))
        i, j = bi + size, bj + size
    return tuple(out)
