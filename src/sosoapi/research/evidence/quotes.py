"""Checking a quotation against evidence: does it occur, and where?

The judging is `quote_match` (pure); this module picks the revisions (one evidence
revision, or every revision a corpus pins), reads and checks them one at a time in the
heavy-read pool (`research/heavy.py`, which reserves the slot before anything is read),
and reports the best verdict with offsets, cue times for
captions, and, when the quote is absent, the closest passage.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sosoapi.contract.errors import invalid_input
from sosoapi.contract.evidence_tools import QuoteDifference, QuoteInput, QuoteMatch, QuoteOutput
from sosoapi.extract.passages import Cue, Speaker, cue_spans, speakers
from sosoapi.research.algorithms.quote_match import Found, Verdict, find_quote, rank
from sosoapi.research.evidence.anchors import anchor, page_ref
from sosoapi.research.evidence.scope import (
    StoredRevision,
    corpus_pins,
    each_pinned,
    only_with,
    read_record,
    stored_revision,
)
from sosoapi.research.heavy import HeavyReads, ShouldStop, checkpoint, never
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.ports import CorporaRepo, EvidenceRepo
from sosoapi.store.records import EvidenceRevisionRecord

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


@dataclass(frozen=True, slots=True)
class Judged:
    """One revision's verdict with its matches and its closest passage as answers (slices
    of its text, never the whole): what a heavy-read process sends back. `matches` and
    `closest` are left out where they cannot beat what the revisions before it gave."""

    verdict: Verdict
    matches: list[QuoteMatch]
    closest: QuoteMatch | None


@dataclass(frozen=True, slots=True)
class Bar:
    """What the revisions judged so far reached: a new revision's answers are shaped only
    if they can count (a better or equal verdict, a closer passage)."""

    rank: int = 0
    closest: float = -1.0


def judged(stored: StoredRevision, quote: str, bar: Bar = Bar()) -> Judged:
    skip = [(label.start, label.end) for label in _labels(stored)]
    finding = find_quote(stored.text, quote, ignorable=skip)
    counts = rank(finding.verdict) >= bar.rank
    near = finding.closest
    return Judged(
        finding.verdict,
        [_match(stored, found) for found in finding.matches] if counts else [],
        _match(stored, near) if near is not None and near.similarity > bar.closest else None,
    )


def judge_record(record: EvidenceRevisionRecord, quote: str, bar: Bar) -> Judged:
    """One stored revision judged (in a heavy-read process: `HeavyReads.compute`)."""
    return judged(stored_revision(record), quote, bar)


@dataclass(slots=True)
class _Tally:
    """The best verdict over the revisions seen so far, its best matches and the closest
    passage, kept as answers, so a revision can be dropped once it is judged."""

    best: Verdict = "absent"
    matches: list[QuoteMatch] = field(default_factory=list)
    closest: QuoteMatch | None = None

    @property
    def bar(self) -> Bar:
        return Bar(rank(self.best), self.closest.similarity if self.closest else -1.0)

    def add(self, one: Judged) -> None:
        if rank(one.verdict) > rank(self.best):
            self.best, self.matches = one.verdict, []
        if one.verdict == self.best and one.matches:
            self.matches += one.matches
            self.matches.sort(key=lambda m: -m.similarity)  # stable: corpus order among equals
            del self.matches[MAX_REPORTED:]
        near = one.closest
        if near is not None and (self.closest is None or near.similarity > self.closest.similarity):
            self.closest = near


Judge = Callable[[Any, Bar], Judged]  # one revision (as its caller holds it), the bar so far


def _tally(revisions: Iterable[Any], judge_one: Judge, should_stop: ShouldStop) -> _Tally:
    tally = _Tally()
    for revision in revisions:
        checkpoint(should_stop)  # one revision at a time: a corpus may pin hundreds
        tally.add(judge_one(revision, tally.bar))
    return tally


def verdict(
    revisions: Iterable[Any],
    others: Iterable[Any] | None,
    judge_one: Judge,
    should_stop: ShouldStop = never,
) -> QuoteOutput:
    """The best verdict over the revisions, its matches, and the closest passage if absent;
    `found_elsewhere` holds the matches in `others` (the rest of a corpus) that are
    better than the named evidence's, since a quote cited to the wrong source is the
    commonest citation error. Each revision is judged and let go before the next is asked
    for (`scope.each_pinned` reads them so); `should_stop` is checked before each."""
    named = _tally(revisions, judge_one, should_stop)
    elsewhere: list[QuoteMatch] = []
    if others is not None:
        there = _tally(others, judge_one, should_stop)
        if rank(there.best) > rank(named.best):
            elsewhere = there.matches
    return QuoteOutput(
        verdict=named.best,
        matches=named.matches,
        closest=named.closest if named.best == "absent" else None,
        found_elsewhere=elsewhere,
    )


def judge(
    revisions: Iterable[StoredRevision],
    quote: str,
    others: Iterable[StoredRevision] | None = None,
    should_stop: ShouldStop = never,
) -> QuoteOutput:
    """`verdict` over revisions already read, judged here."""
    return verdict(revisions, others, lambda stored, bar: judged(stored, quote, bar), should_stop)


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
        and the corpus's revisions are read one at a time, each judged (in a heavy-read
        process when the server has them) before the next is read."""
        pins: list[tuple[str, int]] = []
        if request.corpus_id is not None:
            corpus_id = str(request.corpus_id)
            pins = corpus_pins(self.corpora, ws, corpus_id, request.corpus_revision)

        def judge_one(record: EvidenceRevisionRecord, bar: Bar) -> Judged:
            return self.heavy.compute(judge_record, record, request.quote, bar)

        if request.evidence_id is None:
            every = each_pinned(self.evidence, ws, pins, should_stop)
            return verdict(every, None, judge_one, should_stop)
        named = str(request.evidence_id)
        same = [p for p in pins if p[0] == named]
        revisions: Iterable[EvidenceRevisionRecord]
        if same and request.revision is None:
            revisions = each_pinned(self.evidence, ws, same, should_stop)  # the corpus's pin
        else:
            revisions = [read_record(self.evidence, ws, named, request.revision)]
        others = None
        if request.corpus_id is not None:
            rest = [p for p in pins if p[0] != named]
            others = each_pinned(self.evidence, ws, rest, should_stop)
        return verdict(revisions, others, judge_one, should_stop)
