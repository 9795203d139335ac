"""A revision's searchable passages, cut from the typed result before anything is written.

The use case cuts them (the store only runs SQL): the title and description as passages of
their own, then the text's passages, which are a caption's cues or a page's lines and
windows (`extract.passages`). A cue's speaker label ("Jane Whitaker: ") is indexed as a
passage of its own (part `speaker`), not as words of the sentence, so a phrase never runs
from the name into what was said and a snippet shows the spoken words. Each body is in
the search form both stores tokenize alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from sosoapi.contract.models import Segment
from sosoapi.extract.passages import cue_spans, searchable, speakers, text_passages
from sosoapi.research.retrieval.finished import AnyFinished
from sosoapi.store.records import PassageRecord


@dataclass(frozen=True, slots=True)
class CutPassages:
    """Passages cut where the page was parsed (the pool's trip, research/offload.py), with
    the text, title and description they were cut from: the settle uses them only for a
    result that still has exactly that content, so they can never index another text."""

    text: str
    title: str | None
    description: str | None
    passages: tuple[PassageRecord, ...]

    def fit(self, read: AnyFinished) -> bool:
        """True when `read`'s evidence content is what these passages were cut from."""
        return (
            not read.whole_segments
            and read.result.title == self.title
            and read.result.description == self.description
            and read.whole_text == self.text
        )


def cut_passages(text: str, title: str | None, description: str | None) -> CutPassages:
    """The passages of a text without cues, kept with what they were cut from."""
    return CutPassages(text, title, description, _passages(text, title, description, []))


def passages_of(read: AnyFinished, cut: CutPassages | None = None) -> tuple[PassageRecord, ...]:
    """The passages of the whole text and cues (offsets into the whole text): `cut`'s
    when they were cut from this content, else cut here."""
    if cut is not None and cut.fit(read):
        return cut.passages
    result = read.result
    return _passages(read.whole_text, result.title, result.description, read.whole_segments)


def _passages(
    body: str, title: str | None, description: str | None, whole_segments: list[Segment]
) -> tuple[PassageRecord, ...]:
    rows = [
        PassageRecord(part, 0, 0, None, None, searchable(value))
        for part, value in (("title", title), ("description", description))
        if value
    ]
    if whole_segments:
        segments = [(s.text, s.start_ms, s.end_ms) for s in whole_segments]
        cues = cue_spans(body, segments)
        labels = {label.start: label for label in speakers(body, cues)}
        for c in cues:
            start = c.start
            label = labels.get(c.start)
            if label is not None:
                rows.append(
                    PassageRecord(
                        "speaker", label.start, label.end, c.start_ms, c.end_ms,
                        searchable(label.name),
                    )
                )  # fmt: skip
                start = label.end
            rows.append(
                PassageRecord(
                    "text", start, c.end, c.start_ms, c.end_ms, searchable(body[start : c.end])
                )
            )
    else:
        rows += [
            PassageRecord("text", a, b, None, None, searchable(body[a:b]))
            for a, b in text_passages(body)
        ]
    return tuple(rows)
