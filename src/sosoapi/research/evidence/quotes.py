"""Checking a quotation against evidence: does it occur, and where?

The judging is `quote_match` (pure); this module picks the revisions (one evidence
revision, or every revision a corpus pins), runs the check on each in the heavy-read
pool (`research/heavy.py`), and reports the best verdict with offsets, cue times for
captions, and, when the quote is absent, the closest passage.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from sosoapi.contract.errors import invalid_input
from sosoapi.contract.evidence_tools import QuoteDifference, QuoteInput, QuoteMatch, QuoteOutput
from sosoapi.extract.passages import Cue, Speaker, cue_spans, speakers
from sosoapi.research.algorithms.quote_match import Finding, Found, Verdict, find_quote, rank
from sosoapi.research.evidence.anchors import anchor
from sosoapi.research.evidence.scope import (
    StoredRevision,
    corpus_pins,
    load_pinned,
    load_revision,
    only_with,
)
from sosoapi.research.heavy import HeavyReads, ShouldStop, checkpoint, never
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.ports import CorporaRepo, EvidenceRepo

MAX_REPORTED = 50


def cues_of(cues: Sequence[Cue], start: int, end: int) -> tuple[int, Cue, Cue] | None:
    """(index of the first cue, first cue, last cue) that the passage [start, end) touches."""
    if not cues:
        return None
    ends = [c.end for c in cues]
    first = min(bisect_right(ends, start), len(cues) - 1)
    last = min(bisect_right(ends, max(end - 1, start)), len(cues) - 1)
    return first, cues[first], cues[max(last, first)]


def _labels(stored: StoredRevision) -> list[Speaker]:
    segments = [(s.text, s.start_ms, s.end_ms) for s in stored.segments]
    return speakers(stored.text, cue_spans(stored.text, segments)) if segments else []


def _match(stored: StoredRevision, found: Found) -> QuoteMatch:
    content = stored.content
    segments = [(s.text, s.start_ms, s.end_ms) for s in stored.segments]
    cues = cue_spans(stored.text, segments)
    where = cues_of(cues, found.start, found.end)
    index, first, last = where if where else (None, None, None)
    touched = {c.start for c in cues if c.start < found.end and c.end > found.start}
    named = [label.name for label in speakers(stored.text, cues) if label.start in touched]
    return QuoteMatch(
        evidence_id=stored.evidence_id,
        revision=stored.revision,
        start=found.start,
        end=found.end,
        text=stored.text[found.start : found.end],
        similarity=found.similarity,
        segment_index=index,
        start_ms=first.start_ms if first else None,
        end_ms=last.end_ms if last else None,
        anchor=anchor(stored.text, found.start, found.end, content.provenance.source_url),
        speakers=list(dict.fromkeys(named)),
        differences=[
            QuoteDifference(
                quote=d.quote, text=stored.text[d.start : d.end], start=d.start, end=d.end
            )
            for d in found.differences[:50]
        ],
    )


def _find(stored: StoredRevision, quote: str, should_stop: ShouldStop) -> Finding:
    checkpoint(should_stop)  # one revision at a time: a corpus may pin hundreds
    skip = [(label.start, label.end) for label in _labels(stored)]
    return find_quote(stored.text, quote, ignorable=skip)


def judge(
    revisions: list[StoredRevision],
    quote: str,
    others: list[StoredRevision] | None = None,
    should_stop: ShouldStop = never,
) -> QuoteOutput:
    """The best verdict over the revisions, its matches, and the closest passage if absent;
    `found_elsewhere` holds the matches in `others` (the rest of a corpus) that are
    better than the named evidence's, since a quote cited to the wrong source is the
    commonest citation error. `should_stop` is checked before each revision."""
    findings = [(stored, _find(stored, quote, should_stop)) for stored in revisions]
    best: Verdict = max((f.verdict for _, f in findings), key=rank, default="absent")
    matches = [
        _match(stored, found)
        for stored, finding in findings
        if finding.verdict == best
        for found in finding.matches
    ]
    matches.sort(key=lambda m: -m.similarity)  # stable: corpus order among equals
    closest = None
    if best == "absent":
        near = [(s, f.closest) for s, f in findings if f.closest is not None]
        if near:
            stored, found = max(near, key=lambda pair: pair[1].similarity)
            closest = _match(stored, found)
    elsewhere: list[QuoteMatch] = []
    if others:
        found_there = judge(others, quote, should_stop=should_stop)
        if rank(found_there.verdict) > rank(best):
            elsewhere = found_there.matches
    return QuoteOutput(
        verdict=best, matches=matches[:MAX_REPORTED], closest=closest, found_elsewhere=elsewhere
    )


def _which(request: QuoteInput) -> None:
    """`evidence_id`, `corpus_id` or both (the named evidence, checked against the rest
    of the corpus), each with only its own revision field."""
    if request.evidence_id is None and request.corpus_id is None:
        raise invalid_input(
            "give `evidence_id` (one evidence revision), `corpus_id` (every revision a sealed "
            "corpus pins), or both (the named evidence, and where else in the corpus the "
            "quote occurs).",
            "evidence_id",
        )
    only_with(request.revision, request.evidence_id, "revision", "evidence_id")
    only_with(request.corpus_revision, request.corpus_id, "corpus_revision", "corpus_id")


class QuoteCheck:
    def __init__(self, evidence: EvidenceRepo, corpora: CorporaRepo, heavy: HeavyReads) -> None:
        self.evidence = evidence
        self.corpora = corpora
        self.heavy = heavy

    async def quote(self, call: Call[QuoteInput]) -> Outcome:
        request = call.input
        _which(request)
        ws = call.workspace_id
        pinned: list[StoredRevision] = []
        if request.corpus_id is not None:
            pins = await corpus_pins(
                self.corpora, ws, str(request.corpus_id), request.corpus_revision
            )
            pinned = await load_pinned(self.evidence, ws, pins)
        if request.evidence_id is None:
            revisions, others = pinned, None
        else:
            named = str(request.evidence_id)
            same = [p for p in pinned if p.evidence_id == named]
            if same and request.revision is None:
                revisions = same  # the revision the corpus pins
            else:
                revisions = [await load_revision(self.evidence, ws, named, request.revision)]
            others = [p for p in pinned if p.evidence_id != named]
        output = await self.heavy.run(call, judge, revisions, request.quote, others)
        return Outcome(output)
