"""What changed in a source between two reads: the diff of two evidence revisions.

The comparing is `word_diff` (pure); this module reads both revisions from the
workspace and shapes the contract's answer, reading and comparing in the heavy-read
pool (`research/heavy.py`), so a queued or refused diff holds no text; the comparing
itself runs in a heavy-read process when the server has them.
"""

from __future__ import annotations

from sosoapi.contract.evidence_tools import (
    Anchor,
    DiffInput,
    DiffOutput,
    DiffStats,
    FieldChange,
    PageRef,
    SegmentChange,
    TextChange,
)
from sosoapi.research.algorithms.word_diff import Change, diff_segments, diff_text
from sosoapi.research.evidence.anchors import anchor, page_ref
from sosoapi.research.evidence.scope import StoredRevision, read_record, stored_revision
from sosoapi.research.heavy import HeavyReads, ShouldStop, checkpoint, never
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.ports import EvidenceRepo
from sosoapi.store.records import EvidenceRevisionRecord


def _field(old: str | None, new: str | None) -> FieldChange | None:
    return None if old == new else FieldChange(from_text=old, to_text=new)


def _cues(stored: StoredRevision) -> list[tuple[str, int, int]]:
    return [(s.text, s.start_ms, s.end_ms) for s in stored.segments]


def _segment_changes(old: StoredRevision, new: StoredRevision) -> list[SegmentChange] | None:
    if old.content.kind != "published_captions" and new.content.kind != "published_captions":
        return None
    return [
        SegmentChange(
            op=c.op,
            from_index=c.from_index,
            to_index=c.to_index,
            text=c.text,
            from_start_ms=c.from_times[0] if c.from_times else None,
            from_end_ms=c.from_times[1] if c.from_times else None,
            to_start_ms=c.to_times[0] if c.to_times else None,
            to_end_ms=c.to_times[1] if c.to_times else None,
        )
        for c in diff_segments(_cues(old), _cues(new))
    ]


def _cited(side: StoredRevision, start: int, end: int) -> tuple[Anchor | None, PageRef | None]:
    """The anchor of one side's span and, in a PDF, its page; nothing for an empty span."""
    if end <= start:
        return None, None
    url = side.content.provenance.source_url
    return anchor(side.text, start, end, url, side.pages), page_ref(side.pages, start, end)


def _change(c: Change, old: StoredRevision, new: StoredRevision) -> TextChange:
    from_anchor, from_page = _cited(old, c.from_start, c.from_end)
    to_anchor, to_page = _cited(new, c.to_start, c.to_end)
    return TextChange(
        op=c.op,
        from_start=c.from_start,
        from_end=c.from_end,
        to_start=c.to_start,
        to_end=c.to_end,
        from_text=old.text[c.from_start : c.from_end],
        to_text=new.text[c.to_start : c.to_end],
        from_anchor=from_anchor,
        to_anchor=to_anchor,
        from_page=from_page,
        to_page=to_page,
    )


def compare(
    old: StoredRevision, new: StoredRevision, should_stop: ShouldStop = never
) -> DiffOutput:
    """The contract's diff of two revisions of one evidence, over their whole texts;
    `should_stop` is checked between the steps."""
    a, b = old.content, new.content
    checkpoint(should_stop)
    diff = diff_text(old.text, new.text)
    checkpoint(should_stop)
    segments = _segment_changes(old, new)
    checkpoint(should_stop)
    return DiffOutput(
        evidence_id=old.evidence_id,
        kind=b.kind,
        from_revision=old.revision,
        to_revision=new.revision,
        changes=[_change(c, old, new) for c in diff.changes],
        stats=DiffStats(
            chars_added=diff.chars_added,
            chars_removed=diff.chars_removed,
            unchanged_ratio=diff.unchanged_ratio,
        ),
        segment_changes=segments,
        title_change=_field(a.title, b.title),
        description_change=_field(a.description, b.description),
    )


def compare_records(
    old: EvidenceRevisionRecord, new: EvidenceRevisionRecord, should_stop: ShouldStop = never
) -> DiffOutput:
    """`compare` of two revisions as stored (in a heavy-read process: `HeavyReads.compute`)."""
    return compare(stored_revision(old), stored_revision(new), should_stop)


class RevisionDiff:
    def __init__(self, evidence: EvidenceRepo, heavy: HeavyReads) -> None:
        self.evidence = evidence
        self.heavy = heavy

    async def diff(self, call: Call[DiffInput]) -> Outcome:
        return Outcome(await self.heavy.run(call, self._compare, call.workspace_id, call.input))

    def _compare(self, ws: str, request: DiffInput, should_stop: ShouldStop) -> DiffOutput:
        """Both revisions read in the pool's thread, once the slot is held, and compared
        in a heavy-read process when the server has them."""
        evidence_id = str(request.evidence_id)
        old = read_record(self.evidence, ws, evidence_id, request.from_revision)
        checkpoint(should_stop)
        new = read_record(self.evidence, ws, evidence_id, request.to_revision)
        checkpoint(should_stop)
        return self.heavy.compute(compare_records, old, new, should_stop=should_stop)
