"""Main-text extraction: our extractor against trafilatura, readability-lxml, resiliparse, justext.

Scores three dev sets (`--sets`, default all): extraction-dev (trafilatura's evaluation
set), extraction-dev-fundus (news from 41 countries) and extraction-dev-readability
(Mozilla Readability's test pages: blogs, documentation, wikis). Every set is scored by
must-contain / must-not-contain segments (pooled counts, as described in the data README);
the two sets with a `gold` body are also scored by mean bag-of-words token F1 against it.
CPU time per page is measured for every extractor in the same run. Usage:

    .venv/bin/python bench/extraction.py [--limit N] [--only ours,trafilatura,...]
                                         [--half even|odd] [--sets NAME,...]
    .venv/bin/python bench/extraction.py --walls [--limit N] [--half even|odd] [--sets ...]

Every run prints the even- and odd-indexed pages of cases.json apart, then all pages: the
rules and thresholds of our extractor are tuned on the even half only, so the odd half is
the held-out check. `--half` prints one of them. The extractors take turns page by page,
so the CPU ratios against trafilatura come from the same moments of machine load. Halves
are taken within each set (even- and odd-indexed rows of its cases.json).

`--walls` counts false walls instead: every page goes through the reader (status and
reason as a retrieval settles them, from a 200 answer) with the wall step (extract/walls/) and
without it, taking turns page by page; a page that is `ready` without the step and not
`ready` with it is a false wall (the dev sets hold real articles only). It prints both
runs' F1 and CPU per page and every page the step changed.

The data folder is $SOSOAPI_BENCH_DATA (default ../shared/data from the project root).
"ours" is the shipped pipeline (its default main-text extractor), "ours-lexbor" the same
pipeline with our own extractor, "ours-uncut" the shipped pipeline without the contract's
20,000-character cut of `text` (the peers' texts are not cut, so this row compares
extractors like for like; "ours" is what a retrieval returns). Ours is timed from raw
bytes (charset decoding, bounds, parse, metadata and text); the peers get the page already
decoded, so their CPU figures leave decoding out.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from sosoapi.extract import html as html_document  # noqa: E402
from sosoapi.extract.charset import decode_bytes  # noqa: E402
from sosoapi.extract.html import extract_text_document  # noqa: E402

_SPACE = re.compile(r"\s+")
DATASETS = ("extraction-dev", "extraction-dev-fundus", "extraction-dev-readability")
# Token F1 as the fundus and readability sets' READMEs define it: NFKC, casefold, combining
# marks dropped, each CJK character its own token, else runs of letters and digits.
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    url: str | None
    body: bytes
    markup: str
    must_contain: tuple[str, ...]
    must_not_contain: tuple[str, ...]
    gold: str | None = None


@dataclass(slots=True)
class Score:
    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    cpu: float = 0.0
    pages: int = 0
    token_f1_sum: float = 0.0
    gold_pages: int = 0

    def token_f1(self) -> float | None:
        """Mean per-page token F1 against the gold body, None for a set without gold."""
        return self.token_f1_sum / self.gold_pages if self.gold_pages else None

    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    def f1(self) -> float:
        p, r = self.precision(), self.recall()
        return 2 * p * r / (p + r) if p + r else 0.0

    def ms_per_page(self) -> float:
        return 1000 * self.cpu / self.pages if self.pages else 0.0


def collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def tokens(text: str) -> Counter[str]:
    """The bag of tokens the gold-based sets are scored on."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    bare = "".join(c for c in folded if not unicodedata.combining(c))
    return Counter(_TOKEN.findall(unicodedata.normalize("NFC", bare)))


def token_f1(text: str, gold: str) -> float:
    """Bag-of-words F1 of one page's text against its gold body."""
    got, want = tokens(text), tokens(gold)
    common = sum((got & want).values())
    if not common:
        return 0.0
    precision, recall = common / sum(got.values()), common / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def load_cases(data: Path, limit: int | None, dataset: str = "extraction-dev") -> list[Case]:
    folder = data / dataset
    raw = json.loads((folder / "cases.json").read_text(encoding="utf-8"))
    cases = []
    for item in raw[:limit] if limit else raw:
        body = gzip.decompress((folder / item["file"]).read_bytes())
        url = item["url"] if item.get("url") not in (None, "None") else None
        cases.append(
            Case(
                name=item["file"],
                url=url,
                body=body,
                markup=decode_bytes(body, None, html=True) or "",
                must_contain=tuple(collapse(s) for s in item["must_contain"]),
                must_not_contain=tuple(collapse(s) for s in item["must_not_contain"]),
                gold=item.get("gold"),
            )
        )
    return cases


def ours(case: Case) -> str:
    """The shipped pipeline: extract_text_document with its default extractor."""
    doc = extract_text_document(
        case.body, media_type="text/html", charset=None, content_language=None, url=case.url
    )
    return doc.text if doc else ""


def _ours_with(extractor: str) -> Callable[[Case], str]:
    def run(case: Case) -> str:
        doc = extract_text_document(
            case.body,
            media_type="text/html",
            charset=None,
            content_language=None,
            url=case.url,
            extractor=extractor,  # type: ignore[arg-type]
        )
        return doc.text if doc else ""

    run.__doc__ = f"The shipped pipeline with main text from the {extractor!r} extractor."
    return run


ours_lexbor = _ours_with("lexbor")
ours_hybrid = _ours_with("hybrid")


def ours_uncut(case: Case) -> str:
    """The shipped pipeline with the text bound lifted (the peers' texts are not cut)."""
    bound = html_document.TEXT_MAX
    html_document.TEXT_MAX = sys.maxsize
    try:
        return ours(case)
    finally:
        html_document.TEXT_MAX = bound


def trafilatura_default(case: Case) -> str:
    import trafilatura

    return trafilatura.extract(case.markup, url=case.url) or ""


def trafilatura_fast(case: Case) -> str:
    import trafilatura

    return trafilatura.extract(case.markup, url=case.url, fast=True) or ""


def readability(case: Case) -> str:
    import lxml.html
    from readability import Document

    summary = Document(case.markup).summary(html_partial=True)
    return lxml.html.fromstring(summary).text_content() if summary.strip() else ""


def resiliparse(case: Case) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    return extract_plain_text(HTMLTree.parse(case.markup), main_content=True)


_JUSTEXT_STOPLIST: frozenset[str] | None = None


def justext_text(case: Case) -> str:
    """jusText with every language's stop words at once (the pages are in many languages),
    as trafilatura's own comparison runs it; paragraphs it judges boilerplate are left out."""
    global _JUSTEXT_STOPLIST
    import justext

    if _JUSTEXT_STOPLIST is None:
        words: set[str] = set()
        for language in justext.get_stoplists():
            words |= justext.get_stoplist(language)
        _JUSTEXT_STOPLIST = frozenset(words)
    paragraphs = justext.justext(case.markup, _JUSTEXT_STOPLIST)
    return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)


EXTRACTORS: dict[str, Callable[[Case], str]] = {
    "ours": ours,
    "ours-lexbor": ours_lexbor,
    "ours-hybrid": ours_hybrid,
    "ours-uncut": ours_uncut,
    "trafilatura": trafilatura_default,
    "trafilatura-fast": trafilatura_fast,
    "readability-lxml": readability,
    "resiliparse": resiliparse,
    "justext": justext_text,
}


def score_page(extractor: Callable[[Case], str], case: Case, into: Score) -> None:
    """Run one extractor on one page and add its counts and CPU time to `into`."""
    start = time.process_time()
    try:
        text = extractor(case)
    except Exception:  # a peer that fails on a page scores it as empty
        text = ""
    into.cpu += time.process_time() - start
    into.pages += 1
    found = collapse(text)
    for segment in case.must_contain:
        if segment in found:
            into.tp += 1
        else:
            into.fn += 1
    for segment in case.must_not_contain:
        if segment in found:
            into.fp += 1
        else:
            into.tn += 1
    if case.gold is not None:
        into.token_f1_sum += token_f1(text, case.gold)
        into.gold_pages += 1


def score_halves(
    names: list[str], cases: list[Case], only: str | None = None
) -> dict[str, dict[str, Score]]:
    """Scores per half ("even", "odd") and extractor. Extractors take turns page by page,
    so machine load falls on all of them alike and the CPU ratios stay fair."""
    halves: dict[str, dict[str, Score]] = {
        half: {name: Score() for name in names} for half in ("even", "odd")
    }
    for index, case in enumerate(cases):
        name_of_half = "even" if index % 2 == 0 else "odd"
        if only and name_of_half != only:
            continue
        half = halves[name_of_half]
        for name in names:
            score_page(EXTRACTORS[name], case, half[name])
    return halves


def merged(a: Score, b: Score) -> Score:
    return Score(
        a.tp + b.tp,
        a.fn + b.fn,
        a.fp + b.fp,
        a.tn + b.tn,
        a.cpu + b.cpu,
        a.pages + b.pages,
        a.token_f1_sum + b.token_f1_sum,
        a.gold_pages + b.gold_pages,
    )


def _read(case: Case, walls: bool) -> tuple[str, str, str]:
    """(status/reason, text, judgement) of one page as a retrieval settles it from a 200."""
    import asyncio
    import functools

    from sosoapi.egress.types import FetchOutcome, ResponseHeaders
    from sosoapi.extract import page as extract_page
    from sosoapi.research.offload import Offload
    from sosoapi.research.retrieval import reading

    url = case.url or f"https://bench.test/{case.name}"
    seen: list[str] = []

    def read(*args: Any, **kwargs: Any) -> Any:
        page = original(*args, **kwargs, walls=walls)
        seen.append(page.document.judgement if page.document else "none")
        return page

    async def fetch(asked: str, *, accept: tuple[str, ...]) -> FetchOutcome:
        headers = ResponseHeaders({"content-type": "text/html"})
        return FetchOutcome(None, final_url=url, status_code=200, body=case.body, headers=headers)

    class Inline(Offload):
        async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            return functools.partial(fn, *args, **kwargs)()  # this thread: the page's CPU

    original, extract_page.read_page = extract_page.read_page, read  # reading imports it per read
    try:
        result = asyncio.run(reading.read_source(fetch, "url_text", url, None, pool=Inline()))
    finally:
        extract_page.read_page = original
    settled = f"{result.status}/{result.reason}" if result.reason else str(result.status)
    return settled, result.text, seen[0] if seen else "none"


@dataclass(slots=True)
class _Reader:
    """One run of the reader (with or without the wall step) and what it settled."""

    walls: bool
    last: tuple[str, str, str] = ("", "", "")

    def __call__(self, case: Case) -> str:
        self.last = _read(case, self.walls)
        return self.last[1]


def count_walls(dataset: str, cases: list[Case], only: str | None) -> None:
    """Print the false walls of one dev set: `ready` without the wall step, and with it a
    wall (blocked, unavailable, empty); a `ready` page that became `partial` is listed apart
    (a subscriber teaser: read those pages to see whether the text really stops there)."""
    runs = {"without walls": _Reader(False), "with walls": _Reader(True)}
    scores = {label: Score() for label in runs}
    ready = dict.fromkeys(runs, 0)
    false_walls: list[str] = []
    teasers: list[str] = []
    judged: Counter[str] = Counter()
    for index, case in enumerate(cases):
        if only and ("even" if index % 2 == 0 else "odd") != only:
            continue
        for label, reader in runs.items():
            score_page(reader, case, scores[label])
            ready[label] += reader.last[0] == "ready"
        before, (after, _, judgement) = runs["without walls"].last[0], runs["with walls"].last
        if judgement != "page":
            judged[judgement] += 1
        if before == "ready" and after.startswith("partial"):
            teasers.append(f"{case.name} ({after}, {judgement})")
        elif before == "ready" and after != "ready":
            false_walls.append(f"{case.name} ({after}, {judgement})")
    print(f"{dataset}{', ' + only + ' half' if only else ''}: {scores['with walls'].pages} pages")
    print(f"{'run':<16}{'ready':>7}{'F1':>8}{'CPU ms/page':>13}")
    for label, score in scores.items():
        print(f"{label:<16}{ready[label]:>7}{score.f1():>8.4f}{score.ms_per_page():>13.2f}")
    print(f"false walls: {len(false_walls)}" + "".join(f"\n  {n}" for n in false_walls))
    print(f"ready -> partial: {len(teasers)}" + "".join(f"\n  {n}" for n in teasers))
    print("judged other than 'page': " + (", ".join(f"{k} {v}" for k, v in judged.items()) or "-"))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="score the first N pages only")
    parser.add_argument("--only", default=",".join(EXTRACTORS), help="comma-separated names")
    parser.add_argument("--half", choices=("even", "odd"), help="print one half only")
    parser.add_argument("--sets", default=",".join(DATASETS), help="comma-separated dev sets")
    parser.add_argument("--walls", action="store_true", help="count false walls (see above)")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    data = Path(os.environ.get("SOSOAPI_BENCH_DATA", ROOT.parent / "shared" / "data"))
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    for dataset in [name.strip() for name in args.sets.split(",") if name.strip()]:
        cases = load_cases(data, args.limit, dataset)
        if args.walls:
            count_walls(dataset, cases, args.half)
        else:
            score_dataset(dataset, cases, names, args.half)


def score_dataset(dataset: str, cases: list[Case], names: list[str], only: str | None) -> None:
    """Score and print one dev set: each half, then (without `only`) all its pages."""
    for name in names:  # warm imports and caches outside the timed runs
        EXTRACTORS[name](cases[0])
    halves = score_halves(names, cases, only)
    for half in [only] if only else ["even", "odd"]:
        print_table(f"{dataset}, {half} half", halves[half])
    if not only:
        both = {name: merged(halves["even"][name], halves["odd"][name]) for name in names}
        print_table(f"{dataset}, all pages", both)


def print_table(title: str, scores: dict[str, Score]) -> None:
    base = scores.get("trafilatura")
    pages = next(iter(scores.values())).pages if scores else 0
    gold = any(s.token_f1() is not None for s in scores.values())
    print(f"{title}: {pages} pages")
    header = f"{'extractor':<18}{'precision':>10}{'recall':>8}{'F1':>8}"
    header += f"{'token F1':>10}" if gold else ""
    header += f"{'CPU ms/page':>13}"
    if base:
        header += f"{'F1 vs traf.':>13}{'CPU vs traf.':>14}"
    print(header)
    for name, s in scores.items():
        line = f"{name:<18}{s.precision():>10.3f}{s.recall():>8.3f}{s.f1():>8.4f}"
        line += f"{s.token_f1() or 0.0:>10.4f}" if gold else ""
        line += f"{s.ms_per_page():>13.2f}"
        if base:
            f1_ratio = s.f1() / base.f1() if base.f1() else 0.0
            cpu_ratio = s.ms_per_page() / base.ms_per_page() if base.ms_per_page() else 0.0
            line += f"{f1_ratio:>13.3f}{cpu_ratio:>14.2f}"
        print(line)
    print()


if __name__ == "__main__":
    main()
