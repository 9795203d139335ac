"""The bounded aligner behind diff and the quote check (issue 23): correct edit scripts on
any input, minimal ones when few edits are needed, and a reported coarse fallback with
work that grows with the input's length, not its square (counted, never timed)."""

from __future__ import annotations

import gzip
import random
from collections.abc import Hashable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sosoapi.extract.html import extract_text_document
from sosoapi.extract.webvtt import parse_webvtt
from sosoapi.research.algorithms import quote_words, sequence_align
from sosoapi.research.algorithms.sequence_align import EDIT_BOUND, WORK_PER_ITEM, align
from sosoapi.research.algorithms.word_diff import TextDiff, diff_segments, diff_text

DATA = Path(__file__).resolve().parent.parent / "data"


def rebuilt(old: str, new: str, diff: TextDiff) -> str:
    """The old text with each change's span replaced by the new text's."""
    out, at = [], 0
    for c in diff.changes:
        out.append(old[at : c.from_start] + new[c.to_start : c.to_end])
        at = c.from_end
    return "".join(out) + old[at:]


def applied(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Hashable]:
    """`a` rewritten by the opcodes, each `equal` checked to be equal."""
    out: list[Hashable] = []
    for tag, i1, i2, j1, j2 in align(a, b).opcodes:
        if tag == "equal":
            assert list(a[i1:i2]) == list(b[j1:j2])
        out += b[j1:j2]
    return out


def edits(opcodes: Sequence[tuple[str, int, int, int, int]]) -> int:
    return sum(i2 - i1 + j2 - j1 for tag, i1, i2, j1, j2 in opcodes if tag != "equal")


def fewest_edits(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Inserts plus deletes of a shortest script: len(a) + len(b) - 2 LCS (dynamic programme)."""
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal, row[0] = 0, 0
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], diagonal + 1 if x == y else max(row[j], row[j - 1])
    return len(a) + len(b) - 2 * row[-1]


def edited(rng: random.Random, items: list[str], vocabulary: list[str], n: int) -> list[str]:
    out = list(items)
    for _ in range(n):
        at = rng.randrange(len(out) + 1)
        roll = rng.randrange(3)
        if roll == 0 and at < len(out):
            out[at] = rng.choice(vocabulary)
        elif roll == 1 and at < len(out):
            del out[at]
        else:
            out.insert(at, rng.choice(vocabulary))
    return out


def made_up(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choices("abcdefghij", k=rng.randint(2, 8))) for _ in range(n)]


def random_words(rng: random.Random, chars: int, vocabulary: int | list[str] = 3_000) -> str:
    words = made_up(rng, vocabulary) if isinstance(vocabulary, int) else vocabulary
    out: list[str] = []
    while sum(len(w) + 1 for w in out) < chars:
        out.append(rng.choice(words))
    return " ".join(out)[:chars]


@pytest.fixture(scope="module")
def page_texts() -> list[str]:
    """The main text of the real pages in tests/data/pages, as our extractor gives it."""
    paths = sorted((DATA / "pages").glob("*.html.gz"))
    texts = []
    for path in paths:
        doc = extract_text_document(
            gzip.decompress(path.read_bytes()),
            media_type="text/html",
            charset=None,
            content_language=None,
            extractor="lexbor",
        )
        assert doc is not None
        texts.append(doc.text)
    return [t for t in texts if len(t) > 500]


@given(
    st.lists(st.sampled_from("abcd"), max_size=400), st.lists(st.sampled_from("abcd"), max_size=400)
)
@settings(max_examples=150, deadline=None)
def test_the_opcodes_rewrite_a_into_b_on_any_input(a: list[str], b: list[str]) -> None:
    assert applied(a, b) == b


@given(st.lists(st.sampled_from("abcdef"), max_size=60), st.data())
@settings(max_examples=150, deadline=None)
def test_a_script_within_the_bound_is_a_shortest_one(a: list[str], data: st.DataObject) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    b = edited(rng, a, list("abcdefg"), data.draw(st.integers(0, 12)))
    found = align(a, b)
    assert edits(found.opcodes) == fewest_edits(a, b) and found.coarse == 0


def test_real_pages_diffed_against_each_other_and_an_edited_copy(page_texts: list[str]) -> None:
    """Every pair of real pages, and each page against a copy with 40 word edits: the
    changes rebuild the new text; the lightly edited copy is word by word throughout."""
    rng = random.Random(23)
    for old in page_texts:
        vocabulary = old.split()
        new = " ".join(edited(rng, old.split(" "), vocabulary, 40))
        diff = diff_text(old, new)
        assert rebuilt(old, new, diff) == new and diff.coarse == 0
        assert len(diff.changes) <= 40
        for other in page_texts:
            assert rebuilt(old, other, diff_text(old, other)) == other


def test_two_unrelated_20000_character_texts_fall_back_and_say_so() -> None:
    """Past the bound, regions are one replace each and `coarse` counts them; the script
    is still correct, and the work stays a small multiple of the tokens (difflib's grew
    with their square: 32 s here)."""
    rng = random.Random(5)
    old, new = random_words(rng, 20_000), random_words(rng, 20_000)
    diff = diff_text(old, new)
    assert diff.coarse > 0
    assert rebuilt(old, new, diff) == new
    tokens = len(old) // 3 + len(new) // 3  # tokens: a word and a space per ~6 characters
    assert align(old.split(" "), new.split(" ")).work < WORK_PER_ITEM * tokens


def test_scattered_edits_in_20000_characters_stay_word_by_word_past_the_myers_bound() -> None:
    """500 word edits (more than Myers may spend) are still found one by one through the
    anchors, with no coarse region, and work linear in the length."""
    rng = random.Random(7)
    words = random_words(rng, 20_000, vocabulary=100).split(" ")
    old, new = " ".join(words), " ".join(edited(rng, words, words[:100], 500))
    found = align(old.split(" "), new.split(" "))
    assert found.coarse == 0 and edits(found.opcodes) > EDIT_BOUND
    assert found.work < WORK_PER_ITEM * (len(words) * 2)
    diff = diff_text(old, new)
    assert rebuilt(old, new, diff) == new and diff.coarse == 0


def cues_rebuilt(
    old: list[tuple[str, int, int]], new: list[tuple[str, int, int]]
) -> list[tuple[str, int, int]]:
    """The new cues from the old ones and the cue changes: removed ones left out, added
    ones put at their index, retimed ones given their new times."""
    changes = diff_segments(old, new)
    removed = {c.from_index for c in changes if c.op == "removed"}
    added = {c.to_index: c for c in changes if c.op == "added"}
    retimed = {c.from_index: c.to_times for c in changes if c.op == "retimed"}
    kept = iter(
        (text, *(retimed.get(i) or (start, end)))
        for i, (text, start, end) in enumerate(old)
        if i not in removed
    )
    out: list[tuple[str, int, int]] = []
    for j in range(len(new)):
        change = added.get(j)
        if change is not None:
            assert change.to_times is not None
            out.append((change.text, *change.to_times))
        else:
            text, start, end = next(kept)
            out.append((str(text), int(start), int(end)))
    assert next(kept, None) is None
    return out


def test_cue_changes_rebuild_the_wpt_caption_files_from_each_other() -> None:
    files = sorted((DATA / "captions" / "wpt-file-parsing").glob("*.vtt"))
    cues = [
        [(c.text, c.start_ms, c.end_ms) for c in parse_webvtt(p.read_text("utf-8")).cues]
        for p in files
    ]
    cues = [c for c in cues if c]
    assert len(cues) > 10
    for old in cues:
        for new in cues:
            assert cues_rebuilt(old, new) == new


def test_1000_cue_files_unrelated_and_lightly_edited() -> None:
    rng = random.Random(11)
    vocabulary = made_up(rng, 400)
    text = [random_words(rng, 30, vocabulary) for _ in range(1_000)]
    old = [(t, i * 2000, i * 2000 + 1900) for i, t in enumerate(text)]
    other = [(random_words(rng, 30, vocabulary), s, e) for _, s, e in old]
    light = [(t, s + 100, e) if i % 25 == 0 else (t, s, e) for i, (t, s, e) in enumerate(old)]
    del light[500:503]
    light.insert(100, ("a new cue", 200_000, 201_000))
    assert cues_rebuilt(old, other) == other
    assert cues_rebuilt(old, light) == light
    changes = diff_segments(old, light)
    assert sum(c.op == "retimed" for c in changes) == 40 - 1  # cue 500 of 0, 25, ... removed
    assert [c.op for c in changes].count("removed") == 3
    assert align([t for t, _, _ in old], [t for t, _, _ in other]).work < WORK_PER_ITEM * 2000


def test_the_quote_check_aligns_words_through_the_bounded_aligner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 2,000-character quote of two repeated words against such a source (difflib took
    about a second): both alignments go through `align`, within its work bound."""
    spent: list[tuple[int, int]] = []

    def counted(a: Sequence[Hashable], b: Sequence[Hashable]) -> sequence_align.Alignment:
        found = align(a, b)
        spent.append((found.work, len(a) + len(b)))
        return found

    monkeypatch.setattr(quote_words, "align", counted)
    rng = random.Random(3)
    quote = " ".join(rng.choice("ab") for _ in range(1_000))[:2_000]
    hay = " ".join(rng.choice("ab") for _ in range(3_000))
    start, end, _ = quote_words.through_words(quote, hay, lambda a, b: (a, b), 2_000, 4_000)
    assert start <= 2_000 and end >= 4_000
    assert spent and all(work <= max(200_000, WORK_PER_ITEM * n) for work, n in spent)
