"""Main-text extraction: our extractor against trafilatura, readability-lxml and resiliparse.

Scores the extraction-dev set (must-contain / must-not-contain segments, pooled counts, as
described in the data README) and measures CPU time per page for every extractor in the
same run. Usage:

    .venv/bin/python bench/extraction.py [--limit N] [--only ours,trafilatura,...]
                                         [--half even|odd]

Every run prints the even- and odd-indexed pages of cases.json apart, then all pages: the
rules and thresholds of our extractor are tuned on the even half only, so the odd half is
the held-out check. `--half` prints one of them. The extractors take turns page by page,
so the CPU ratios against trafilatura come from the same moments of machine load.

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from sosoapi.extract import html as html_document  # noqa: E402
from sosoapi.extract.charset import decode_bytes  # noqa: E402
from sosoapi.extract.html import extract_text_document  # noqa: E402

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    url: str
    body: bytes
    markup: str
    must_contain: tuple[str, ...]
    must_not_contain: tuple[str, ...]


@dataclass(slots=True)
class Score:
    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    cpu: float = 0.0
    pages: int = 0

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


def load_cases(data: Path, limit: int | None) -> list[Case]:
    folder = data / "extraction-dev"
    raw = json.loads((folder / "cases.json").read_text(encoding="utf-8"))
    cases = []
    for item in raw[:limit] if limit else raw:
        body = gzip.decompress((folder / item["file"]).read_bytes())
        cases.append(
            Case(
                name=item["file"],
                url=item["url"],
                body=body,
                markup=decode_bytes(body, None, html=True) or "",
                must_contain=tuple(collapse(s) for s in item["must_contain"]),
                must_not_contain=tuple(collapse(s) for s in item["must_not_contain"]),
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


EXTRACTORS: dict[str, Callable[[Case], str]] = {
    "ours": ours,
    "ours-lexbor": ours_lexbor,
    "ours-hybrid": ours_hybrid,
    "ours-uncut": ours_uncut,
    "trafilatura": trafilatura_default,
    "trafilatura-fast": trafilatura_fast,
    "readability-lxml": readability,
    "resiliparse": resiliparse,
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
        a.tp + b.tp, a.fn + b.fn, a.fp + b.fp, a.tn + b.tn, a.cpu + b.cpu, a.pages + b.pages
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="score the first N pages only")
    parser.add_argument("--only", default=",".join(EXTRACTORS), help="comma-separated names")
    parser.add_argument("--half", choices=("even", "odd"), help="print one half only")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    data = Path(os.environ.get("SOSOAPI_BENCH_DATA", ROOT.parent / "shared" / "data"))
    cases = load_cases(data, args.limit)
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    for name in names:  # warm imports and caches outside the timed runs
        EXTRACTORS[name](cases[0])
    halves = score_halves(names, cases, args.half)
    for half in [args.half] if args.half else ["even", "odd"]:
        print_table(f"{half} half", halves[half])
    if not args.half:
        both = {name: merged(halves["even"][name], halves["odd"][name]) for name in names}
        print_table("all pages", both)


def print_table(title: str, scores: dict[str, Score]) -> None:
    base = scores.get("trafilatura")
    pages = next(iter(scores.values())).pages if scores else 0
    print(f"extraction-dev, {title}: {pages} pages")
    header = f"{'extractor':<18}{'precision':>10}{'recall':>8}{'F1':>8}{'CPU ms/page':>13}"
    if base:
        header += f"{'F1 vs traf.':>13}{'CPU vs traf.':>14}"
    print(header)
    for name, s in scores.items():
        line = (
            f"{name:<18}{s.precision():>10.3f}{s.recall():>8.3f}{s.f1():>8.4f}"
            f"{s.ms_per_page():>13.2f}"
        )
        if base:
            f1_ratio = s.f1() / base.f1() if base.f1() else 0.0
            cpu_ratio = s.ms_per_page() / base.ms_per_page() if base.ms_per_page() else 0.0
            line += f"{f1_ratio:>13.3f}{cpu_ratio:>14.2f}"
        print(line)


if __name__ == "__main__":
    main()
