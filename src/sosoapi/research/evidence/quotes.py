"""Checking a quotation against evidence: does it occur, and where?

The judging is `quote_match` (pure); this module picks the revisions (one evidence
revision, or every revision a corpus pins), reads and checks them one at a time in the
heavy-read pool (`research/heavy.py`, which reserves the slot before anything is read),
and reports the best verdict with offsets, cue times for
captions, and, when the quote is absent, the closest passage.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sosoapi.contract.errors import invalid_input
from sosoapi.contract.evidence_tools import QuoteDifference, QuoteInput, QuoteMatch, QuoteOutput
from sosoapi.extract.passages import Cue, Speaker, cue_spans, speakers
from sosoapi.research.algorithms.quote_match import Finding, Found, Verdict, find_quote, rank
from sosoapi.research.evidence.anchors import anchor, page_ref
from sosoapi.research.evidence.scope import (
    StoredRevision,
    corpus_pins,
    each_pinned,
    only_with,
    read_revision,
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
        anchor=anchor(
            stored.text, found.start, found.end, content.provenance.source_url, stored.pages
        ),
        page=page_ref(stored.pages, found.start, found.end),
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


@dataclass(slots=True)
class _Tally:
    """The best verdict over the revisions seen so far, its best matches and the closest
    passage, kept as answers (slices of a text, never a whole text), so a revision can be
    dropped once it is judged."""

    best: Verdict = "absent"
    matches: list[QuoteMatch] = field(default_factory=list)
    closest: QuoteMatch | None = None

    def add(self, stored: StoredRevision, finding: Finding) -> None:
        if rank(finding.verdict) > rank(self.best):
            self.best, self.matches = finding.verdict, []
        if finding.verdict == self.best and finding.matches:
            self.matches += [_match(stored, found) for found in finding.matches]
            self.matches.sort(key=lambda m: -m.similarity)  # stable: corpus order among equals
            del self.matches[MAX_REPORTED:]
        near = finding.closest
        if near is not None and (self.closest is None or near.similarity > self.closest.similarity):
            self.closest = _match(stored, near)


def _tally(revisions: Iterable[StoredRevision], quote: str, should_stop: ShouldStop) -> _Tally:
    tally = _Tally()
    for stored in revisions:
        tally.add(stored, _find(stored, quote, should_stop))
    return tally


def judge(
    revisions: Iterable[StoredRevision],
    quote: str,
    others: Iterable[StoredRevision] | None = None,
    should_stop: ShouldStop = never,
) -> QuoteOutput:
    """The best verdict over the revisions, its matches, and the closest passage if absent;
    `found_elsewhere` holds the matches in `others` (the rest of a corpus) that are
    better than the named evidence's, since a quote cited to the wrong source is the
    commonest citation error. Each revision is judged and let go before the next is asked
    for (`scope.each_pinned` reads them so); `should_stop` is checked before each."""
    named = _tally(revisions, quote, should_stop)
    elsewhere: list[QuoteMatch] = []
    if others is not None:
        there = _tally(others, quote, should_stop)
        if rank(there.best) > rank(named.best):
            elsewhere = there.matches
    return QuoteOutput(
        verdict=named.best,
        matches=named.matches,
        closest=named.closest if named.best == "absent" else None,
        found_elsewhere=elsewhere,
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
        _which(call.input)
        return Outcome(await self.heavy.run(call, self._check, call.workspace_id, call.input))

    def _check(self, ws: str, request: QuoteInput, should_stop: ShouldStop) -> QuoteOutput:
        """The whole check in the pool's thread: nothing is read before the slot is held,
        and the corpus's revisions are read one at a time as they are judged."""
        pins: list[tuple[str, int]] = []
        if request.corpus_id is not None:
            corpus_id = str(request.corpus_id)
            pins = corpus_pins(self.corpora, ws, corpus_id, request.corpus_revision)
        if request.evidence_id is None:
            every = each_pinned(self.evidence, ws, pins, should_stop)
            return judge(every, request.quote, should_stop=should_stop)
        named = str(request.evidence_id)
        same = [p for p in pins if p[0] == named]
        revisions: Iterable[StoredRevision]
        if same and request.revision is None:
            revisions = each_pinned(self.evidence, ws, same, should_stop)  # the corpus's pin
        else:
            revisions = [read_revision(self.evidence, ws, named, request.revision)]
        others = None
        if request.corpus_id is not None:
            rest = [p for p in pins if p[0] != named]
            others = each_pinned(self.evidence, ws, rest, should_stop)
        return judge(revisions, request.quote, others, should_stop)
