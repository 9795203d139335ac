"""A revision's searchable passages, cut from the typed result before anything is written.

The use case cuts them (the store only runs SQL): the title and description as passages of
their own, then the text's passages, which are a caption's cues or a page's lines and
windows (`extract.passages`). A cue's speaker label ("Jane Whitaker: ") is indexed as a
passage of its own (part `speaker`), not as words of the sentence, so a phrase never runs
from the name into what was said and a snippet shows the spoken words. Each body is in
the search form both stores tokenize alike.
"""

from __future__ import annotations

from sosoapi.contract.models import RetrieveResult
from sosoapi.extract.passages import cue_spans, searchable, speakers, text_passages
from sosoapi.store.records import PassageRecord


def passages_of(result: RetrieveResult) -> tuple[PassageRecord, ...]:
    """The passages of the whole text and cues (offsets into the whole text)."""
    body = result.whole_text
    rows = [
        PassageRecord(part, 0, 0, None, None, searchable(value))
        for part, value in (("title", result.title), ("description", result.description))
        if value
    ]
    if result.whole_segments:
        segments = [(s.text, s.start_ms, s.end_ms) for s in result.whole_segments]
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
