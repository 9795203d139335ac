"""Diff worst cases (issue 23): `evidence_diff` of two revisions, new aligner vs difflib.

Run: .venv/bin/python bench/diff.py [--repeats R]

Cases: two unrelated 20,000-character texts of random words; one such text and a copy
with scattered word edits (1 in 50 words; and 1 in 10); two unrelated 1,000-cue caption
files of random words; one and a copy with 1 cue in 20 edited, dropped, added or
retimed. Each row is the best of R runs of `compare` (the tool's whole answer: text
changes with their anchors, cue changes, stats) on in-memory revisions, with the new
aligner and with the old one (difflib's SequenceMatcher without autojunk, patched in
for the baseline only), and the coarse regions the new result reports.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from difflib import SequenceMatcher
from functools import partial

from sosoapi.contract.models import Segment
from sosoapi.research.algorithms import sequence_align, word_diff
from sosoapi.research.evidence.diffs import compare
from sosoapi.research.evidence.scope import StoredRevision
from sosoapi.testing.results import page_result

TEXT_CHARS = 20_000
CUES = 1_000
Cue = tuple[str, int, int]
Aligner = Callable[[Sequence[Hashable], Sequence[Hashable]], sequence_align.Alignment]
EVIDENCE = "00000000-0000-4000-8000-000000000000"


def words(rng: random.Random, vocabulary: list[str], chars: int) -> list[str]:
    out: list[str] = []
    size = 0
    while size < chars:
        out.append(rng.choice(vocabulary))
        size += len(out[-1]) + 1
    return out


def vocabulary(rng: random.Random, n: int = 3_000) -> list[str]:
    """Made-up words of 2-9 letters, as many as a page's distinct words."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=rng.randint(2, 9))) for _ in range(n)]


def edited(rng: random.Random, vocab: list[str], items: list[str], every: int) -> list[str]:
    """About one item in `every` replaced, dropped, or preceded by a new one."""
    out: list[str] = []
    for item in items:
        roll = rng.randrange(every * 3)
        if roll == 0:
            out.append(rng.choice(vocab))
        elif roll == 1:
            continue
        elif roll == 2:
            out += [rng.choice(vocab), item]
        else:
            out.append(item)
    return out


def cue_file(rng: random.Random, vocab: list[str], n: int) -> list[Cue]:
    return [(" ".join(words(rng, vocab, 30)), i * 2000, i * 2000 + 1900) for i in range(n)]


def edited_cues(rng: random.Random, vocab: list[str], cues: list[Cue]) -> list[Cue]:
    """One cue in 20 given new words, dropped, preceded by a new cue, or retimed."""
    out: list[Cue] = []
    for text, start, end in cues:
        roll = rng.randrange(80)
        if roll == 0:
            out.append((" ".join(words(rng, vocab, 30)), start, end))
        elif roll == 1:
            continue
        elif roll == 2:
            out += [(" ".join(words(rng, vocab, 30)), start, start + 900), (text, start, end)]
        elif roll == 3:
            out.append((text, start + 100, end + 100))
        else:
            out.append((text, start, end))
    return out


def stored(text: str, revision: int, kind: str, segments: list[Segment]) -> StoredRevision:
    """A revision as diff reads it: the receipt (its text cut to the receipt's limit) and
    the whole text and cues."""
    content = page_result(
        text[:TEXT_CHARS], source_url="https://example.com/", retrieved_at="2026-01-01T00:00:00Z"
    ).model_copy(update={"kind": kind})
    return StoredRevision(EVIDENCE, revision, 2, content, text, segments)


def page(items: list[str], revision: int) -> StoredRevision:
    return stored(" ".join(items)[:TEXT_CHARS], revision, "url_text", [])


def captions(cues: list[Cue], revision: int) -> StoredRevision:
    segments = [Segment(text=t, start_ms=s, end_ms=e) for t, s, e in cues]
    return stored("\n".join(t for t, _, _ in cues), revision, "published_captions", segments)


def difflib_align(a: Sequence[Hashable], b: Sequence[Hashable]) -> sequence_align.Alignment:
    """The old alignment, shaped as the new one's answer: the baseline."""
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    blocks = tuple((m.a, m.b, m.size) for m in matcher.get_matching_blocks() if m.size)
    return sequence_align.Alignment(blocks, tuple(matcher.get_opcodes()), 0, 0)


@contextmanager
def aligner(align: Aligner) -> Iterator[None]:
    """`word_diff` aligning with `align` for the duration (the baseline's patch)."""
    saved: Aligner = getattr(word_diff, "align")  # noqa: B009
    setattr(word_diff, "align", align)  # noqa: B010 (the module's own name, patched)
    try:
        yield
    finally:
        setattr(word_diff, "align", saved)  # noqa: B010


def best(repeats: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        run()
        times.append(time.process_time() - started)
    return min(times) * 1000


def cases(rng: random.Random) -> list[tuple[str, StoredRevision, StoredRevision]]:
    vocab = vocabulary(rng)
    text = words(rng, vocab, TEXT_CHARS)
    cues = cue_file(rng, vocab, CUES)
    other = words(rng, vocab, TEXT_CHARS)
    return [
        ("20,000 chars, unrelated random words", page(text, 1), page(other, 2)),
        ("20,000 chars, 1 word in 50 edited", page(text, 1), page(edited(rng, vocab, text, 50), 2)),
        ("20,000 chars, 1 word in 10 edited", page(text, 1), page(edited(rng, vocab, text, 10), 2)),
        (
            "1,000 cues, unrelated random words",
            captions(cues, 1),
            captions(cue_file(rng, vocab, CUES), 2),
        ),
        (
            "1,000 cues, 1 cue in 20 edited",
            captions(cues, 1),
            captions(edited_cues(rng, vocab, cues), 2),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-repeats", type=int, default=1)
    args = parser.parse_args()
    print(f"{'case':40} {'new ms':>9} {'difflib ms':>11} {'ratio':>8} {'coarse':>7}")
    for name, old, new in cases(random.Random(23)):
        ms_new = best(args.repeats, partial(compare, old, new))
        coarse = word_diff.diff_text(old.text, new.text).coarse
        with aligner(difflib_align):
            ms_old = best(args.baseline_repeats, partial(compare, old, new))
        print(f"{name:40} {ms_new:9.1f} {ms_old:11.1f} {ms_old / ms_new:7.0f}x {coarse:7d}")


if __name__ == "__main__":
    main()
