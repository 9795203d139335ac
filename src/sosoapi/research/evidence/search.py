"""Finding again what was read: full-text search over a workspace's evidence.

The query language is small on purpose: plain words must all occur, "quoted phrases"
occur as phrases, and nothing else is syntax (no operators a model could trip over).
Ranking and matching happen in the store (`store.search_repo`); this module parses the
query, chooses the revisions (latest, or a corpus's pins), pages, and cuts snippets, the
pins, the store's search and the snippets as one job of the heavy-read pool
(`research/heavy.py`), so nothing is read before its slot is reserved; each hit's snippets
are cut in a heavy-read process when the server has them.
"""

from __future__ import annotations

import hashlib
import json
import re

from sosoapi.contract.documents import result_model
from sosoapi.contract.errors import invalid_input
from sosoapi.contract.evidence_tools import SearchInput, SearchOutput, SearchResult, Snippet
from sosoapi.extract.passages import searchable
from sosoapi.research.evidence.anchors import anchor, page_ref
from sosoapi.research.evidence.scope import (
    StoredRevision,
    corpus_pins,
    only_with,
    stored_revision,
)
from sosoapi.research.heavy import HeavyReads, ShouldStop, checkpoint
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.ports import CorporaRepo, EvidenceRepo, SearchIndex
from sosoapi.store.cursors import MAX_SEARCH_OFFSET, BadCursor, decode_search, encode_search
from sosoapi.store.records import EvidenceRevisionRecord, SearchHit

MAX_PHRASES = 32
# What a query means, said once for people: the console shows it under the search box and
# docs/evidence-tools.md quotes it (tests/research/test_search_rules_text.py holds both).
QUERY_RULES = (
    "Every word must occur in the revision, each anywhere in it; a phrase in "
    '"double quotes" must occur as written, within one passage. Words are also found by '
    "their stem and without accents."
)
_PHRASE = re.compile(r'"([^"]*)"?|(\S+)')
_WORDY = re.compile(r"\w")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # separators here (PostgreSQL refuses NUL)


def parse_query(query: str) -> list[str]:
    """Phrases of the query: each "quoted run" is one, each other word is one."""
    phrases: list[str] = []
    for m in _PHRASE.finditer(_CONTROL.sub(" ", query)):
        phrase = " ".join((m.group(1) if m.group(1) is not None else m.group(2)).split())
        if _WORDY.search(phrase) and phrase not in phrases:
            phrases.append(phrase)
    return phrases


def _fingerprint(request: SearchInput) -> str:
    scope = [request.query, str(request.corpus_id), request.corpus_revision, request.kind]
    return hashlib.sha256(json.dumps(scope).encode()).hexdigest()[:16]


def decode_cursor(cursor: str | None, fingerprint: str) -> int:
    """The offset a cursor carries; it must come from the same query and scope."""
    if cursor is None:
        return 0
    try:
        return decode_search(cursor, fingerprint)
    except BadCursor as error:
        raise invalid_input(
            f"`cursor` was not issued by this server for this query ({error}); pass the "
            "`next_cursor` of the previous page of the same search, or omit it for the first "
            f"page. Search pages end after {MAX_SEARCH_OFFSET} results: narrow the query "
            "to see past them.",
            "cursor",
        ) from None


DESCRIPTION_SNIPPET = 300  # code points of a description shown when only it matched


def description_snippet(description: str | None, phrases: list[str]) -> Snippet | None:
    """When no passage of the text matched, the description may have: a snippet of it
    around the first query word it holds (an exact slice, offsets into the description)."""
    if not description:
        return None
    folded = description.casefold()
    words = [w.casefold() for phrase in phrases for w in re.findall(r"\w+", phrase)]
    at = min((i for i in (folded.find(w) for w in words) if i >= 0), default=-1)
    if at < 0:
        return None
    start = max(0, at - DESCRIPTION_SNIPPET // 3)
    end = min(len(description), start + DESCRIPTION_SNIPPET)
    return Snippet(
        text=description[start:end],
        start=start,
        end=end,
        start_ms=None,
        end_ms=None,
        field="description",
        anchor=anchor(description, start, end, None),  # offsets into the description
    )


def hit_result(
    hit: SearchHit, phrases: list[str], record: EvidenceRevisionRecord | None
) -> SearchResult:
    """`_result` of a hit and its revision as stored (in a heavy-read process:
    `HeavyReads.compute`), read back there: the whole text is parsed off the server."""
    return _result(hit, phrases, stored_revision(record) if record is not None else None)


def _result(hit: SearchHit, phrases: list[str], stored: StoredRevision | None) -> SearchResult:
    """A hit shaped for the contract; `stored` is its revision as stored (snippet offsets
    point into its whole text, and a PDF's pages are spans of it), None to read the text
    from the hit's content."""
    content = result_model(hit.kind).model_validate_json(hit.content)
    text, pages = (content.text, ()) if stored is None else (stored.text, stored.pages)
    snippets = [
        Snippet(
            text=text[s.start : s.end],
            start=s.start,
            end=s.end,
            start_ms=s.start_ms,
            end_ms=s.end_ms,
            anchor=anchor(text, s.start, s.end, hit.source_url, pages),
            page=page_ref(pages, s.start, s.end),
        )
        for s in hit.snippets
        if s.end > s.start
    ]
    if not snippets:
        described = description_snippet(content.description, phrases)
        snippets = [described] if described else []
    return SearchResult(
        evidence_id=hit.evidence_id,
        revision=hit.revision,
        kind=content.kind,
        title=content.title,
        source_url=hit.source_url,
        score=hit.score,
        snippets=snippets,
    )


class EvidenceSearch:
    def __init__(
        self,
        search: SearchIndex,
        corpora: CorporaRepo,
        evidence: EvidenceRepo,
        heavy: HeavyReads,
    ) -> None:
        self.index = search
        self.corpora = corpora
        self.evidence = evidence
        self.heavy = heavy

    async def search(self, call: Call[SearchInput]) -> Outcome:
        request = call.input
        only_with(request.corpus_revision, request.corpus_id, "corpus_revision", "corpus_id")
        phrases = parse_query(request.query)
        if not phrases:
            raise invalid_input(
                '`query` has no words to search for; send plain words or a "quoted phrase".',
                "query",
            )
        if len(phrases) > MAX_PHRASES:
            raise invalid_input(
                f"`query` has {len(phrases)} words and phrases, more than {MAX_PHRASES}; "
                "shorten it or quote the words that belong together.",
                "query",
            )
        fingerprint = _fingerprint(request)
        offset = decode_cursor(request.cursor, fingerprint)
        results, more = await self.heavy.run(
            call, self._found, call.workspace_id, request, phrases, offset
        )
        following = offset + len(results)
        more = more and following <= MAX_SEARCH_OFFSET
        next_cursor = encode_search(following, fingerprint) if more else None
        return Outcome(SearchOutput(results=results, next_cursor=next_cursor))

    def _found(
        self,
        workspace_id: str,
        request: SearchInput,
        phrases: list[str],
        offset: int,
        should_stop: ShouldStop,
    ) -> tuple[list[SearchResult], bool]:
        """One page of results and whether more follow: the corpus's pins, the store's
        search, then the snippets cut from each hit's whole text, read one hit at a time."""
        pins = None
        if request.corpus_id is not None:
            corpus_id = str(request.corpus_id)
            pins = corpus_pins(self.corpora, workspace_id, corpus_id, request.corpus_revision)
        hits, more = self.index.search(
            workspace_id,
            [searchable(p) for p in phrases],
            kind=request.kind,
            pins=pins,
            offset=offset,
            limit=request.limit,
        )
        results = []
        for hit in hits:  # its whole text: snippets past the receipt's bound are cut from it
            checkpoint(should_stop)
            record = self.evidence.revision(workspace_id, hit.evidence_id, hit.revision)
            results.append(self.heavy.compute(hit_result, hit, phrases, record))
        return results, more
