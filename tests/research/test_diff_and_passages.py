"""The pure parts behind diff and search: word-level changes, cue changes, passages."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from sosoapi.extract.passages import PASSAGE_MAX, cue_spans, text_passages
from sosoapi.research.algorithms.word_diff import Change, diff_segments, diff_text


def test_a_changed_word_is_one_replace_with_offsets_into_both_texts() -> None:
    old, new = "Prices rose by 5 % in May.", "Prices fell by 5 % in late May."
    diff = diff_text(old, new)
    assert diff.changes == (Change("replace", 7, 11, 7, 11), Change("insert", 22, 22, 22, 27))
    assert new[22:27] == "late "
    assert (diff.chars_added, diff.chars_removed) == (9, 4)
    assert diff.unchanged_ratio == round(2 * (len(old) - 4) / (len(old) + len(new)), 4)


def test_no_change_and_empty_texts() -> None:
    assert diff_text("same words", "same words").changes == ()
    assert diff_text("same words", "same words").unchanged_ratio == 1.0
    assert diff_text("", "").unchanged_ratio == 1.0
    gone = diff_text("all of it", "")
    assert gone.changes == (Change("delete", 0, 9, 0, 0),) and gone.unchanged_ratio == 0.0


@given(st.text(max_size=200), st.text(max_size=200))
def test_applying_the_changes_to_the_old_text_gives_the_new_one(old: str, new: str) -> None:
    rebuilt, at = [], 0
    for c in diff_text(old, new).changes:
        rebuilt.append(old[at : c.from_start] + new[c.to_start : c.to_end])
        at = c.from_end
    assert "".join(rebuilt) + old[at:] == new


def test_cues_added_removed_and_retimed() -> None:
    old = [("Hello", 0, 1000), ("there", 1000, 2000), ("gone", 2000, 3000)]
    new = [("Hello", 0, 1000), ("there", 1000, 2500), ("new", 2500, 3000)]
    changes = diff_segments(old, new)
    assert [(c.op, c.from_index, c.to_index, c.text) for c in changes] == [
        ("retimed", 1, 1, "there"),
        ("removed", 2, None, "gone"),
        ("added", None, 2, "new"),
    ]
    assert (changes[0].from_times, changes[0].to_times) == ((1000, 2000), (1000, 2500))


@given(st.text(alphabet="ab \n\t.", max_size=2000))
def test_passages_are_trimmed_slices_that_keep_every_word(text: str) -> None:
    spans = text_passages(text)
    assert all(0 <= a < b <= len(text) and b - a <= PASSAGE_MAX for a, b in spans)
    assert all(not text[a].isspace() and not text[b - 1].isspace() for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in itertools.pairwise(spans))
    kept = "".join(text[a:b] for a, b in spans)
    assert "".join(text.split()) == "".join(kept.split())


def test_cues_are_found_in_order_and_a_cut_text_keeps_the_cues_it_has() -> None:
    segments = [("one", 0, 1), ("two", 1, 2), ("one", 2, 3)]
    cues = cue_spans("one\ntwo\none", segments)
    assert [(c.start, c.end, c.start_ms) for c in cues] == [(0, 3, 0), (4, 7, 1), (8, 11, 2)]
    assert len(cue_spans("one\ntw", segments)) == 1
