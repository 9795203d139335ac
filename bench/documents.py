"""PDF text: our reader (extract/pdf/) against every permissively licensed peer, in one run.

Peers: pypdfium2 (plain text page), pdfminer.six, pypdf, pdfplumber, pdftext and
pdf-inspector (the `bench` extra). Data: $SOSOAPI_BENCH_DATA/pdf-dev (default
../shared/data/pdf-dev from the project root): 53 real PDFs, 41 with a reference text.

Halves are fixed by sorted file name: even positions (0, 2, ...) are the tuning half, odd
positions the held-out half; every run prints both and the whole. Metrics, per document
with a full reference text (Markdown marks and HTML comments removed first):

Scans without a text layer are left out of words and order (their reference is OCR
output; OCR is not reading a PDF's text): the checks cover them.

- words: NFKC, case-folded `\\w+` tokens, each CJK character a token of its own; word F1 is
  the multiset overlap (precision against ours, recall against the reference); "missing" is
  the share of reference words not matched, "invented" the share of ours not matched.
- order: the longest common subsequence of the two word sequences, each restricted to the
  words they share (as a multiset), divided by the shared count: 1.0 when every shared word
  comes in the reference's order, whatever was lost or added.
- checks: hand-written facts per special case (`_checks`): a user password gives no text and
  no crash, an owner password reads, a scan invents no words, a partial reference (prefix,
  one line) appears as a run of words, CJK has no space between two CJK characters that the
  reference does not have, no ligature code points, a broken file does not crash the reader.
- CPU per page and peak memory: every reader runs in a fresh subprocess per document
  (`--worker`); CPU is the process time of the read itself over the index's page count, memory
  the growth of the peak RSS (ru_maxrss) over the RSS after imports, so native allocations
  (PDFium, pdf-inspector) count as well as Python's.

Usage: .venv/bin/python bench/documents.py [--only ours,pdfminer.six,...] [--limit N]
                                           [--half tune|held-out] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rapidfuzz.distance import LCSseq

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("SOSOAPI_BENCH_DATA", ROOT.parent / "shared" / "data")) / "pdf-dev"
READERS = (
    "ours",
    "ours-whole",
    "pypdfium2",
    "pdfminer.six",
    "pypdf",
    "pdfplumber",
    "pdftext",
    "pdf-inspector",
)
_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# Han and kana run on without spaces (Hangul is spaced by word, so it is not checked).
_CJK_SPACE = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff] +[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]"
)
_LIGATURE = re.compile(r"[\ufb00-\ufb06]")
_MD_COMMENT = re.compile(r"<!--.*?-->", re.S)


# ---- readers (run inside the worker subprocess) ----


def _ours(path: str) -> str:
    from sosoapi.extract.pdf import read_pdf

    return read_pdf(Path(path)).text


def _ours_whole(path: str) -> str:
    """Ours with each page's furniture (running heads, feet, page numbers, margin stamps)
    put back after the page's text: the references of raw extractors keep those lines, so
    this row tells lost words from words moved out of the running text."""
    from sosoapi.extract.pdf import read_pdf

    document = read_pdf(Path(path))
    return "\n".join(
        "\n".join([document.text[page.start : page.end], *page.furniture])
        for page in document.pages
    )


def _pypdfium2(path: str) -> str:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(path)
    return "\n".join(page.get_textpage().get_text_range() for page in document)


def _pdfminer(path: str) -> str:
    from pdfminer.high_level import extract_text

    return str(extract_text(path))


def _pypdf(path: str) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def _pdfplumber(path: str) -> str:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return "\n".join(page.extract_text() or "" for page in pdf.pages)


def _pdftext(path: str) -> str:
    from pdftext.extraction import plain_text_output

    return str(plain_text_output(path, sort=True, hyphens=False, workers=1))


def _pdf_inspector(path: str) -> str:
    import pdf_inspector

    return str(pdf_inspector.extract_text(path))


_FUNCS: dict[str, Callable[[str], str]] = {
    "ours": _ours,
    "ours-whole": _ours_whole,
    "pypdfium2": _pypdfium2,
    "pdfminer.six": _pdfminer,
    "pypdf": _pypdf,
    "pdfplumber": _pdfplumber,
    "pdftext": _pdftext,
    "pdf-inspector": _pdf_inspector,
}
_IMPORTS = {
    "ours": "sosoapi.extract.pdf",
    "ours-whole": "sosoapi.extract.pdf",
    "pypdfium2": "pypdfium2",
    "pdfminer.six": "pdfminer.high_level",
    "pypdf": "pypdf",
    "pdfplumber": "pdfplumber",
    "pdftext": "pdftext.extraction",
    "pdf-inspector": "pdf_inspector",
}


def _rss_kib() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _worker(reader: str, path: str) -> None:
    """One read in this fresh process; prints its text, CPU and memory as JSON."""
    import importlib
    import logging
    import warnings

    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    importlib.import_module(_IMPORTS[reader])
    base = _rss_kib()
    start = time.process_time()
    text, error = "", None
    try:
        text = _FUNCS[reader](path)
    except Exception as exc:
        error = f"{type(exc).__name__}: {str(exc)[:120]}"
    cpu = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"text": text, "cpu": cpu, "mem_kib": max(0, peak - base), "error": error}))


# ---- scoring ----


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).casefold()
    words: list[str] = []
    for token in _WORD.findall(text):
        if _CJK.search(token):
            words.extend(token)
        else:
            words.append(token)
    return words


def _truth_text(doc: dict[str, Any]) -> str:
    raw = (DATA / doc["truth"]).read_text("utf-8", errors="replace")
    return _MD_COMMENT.sub(" ", raw) if doc["truth"].endswith(".md") else raw


@dataclass
class Score:
    f1: float
    order: float
    missing: float
    invented: float


def score(ours: str, truth: str) -> Score:
    got, want = _words(ours), _words(truth)
    shared = Counter(got) & Counter(want)
    common = sum(shared.values())
    precision = common / len(got) if got else 0.0
    recall = common / len(want) if want else 0.0
    f1 = 2 * precision * recall / (precision + recall) if common else 0.0
    order = _order(got, want, shared) if common else 0.0
    return Score(f1, order, 1 - recall, 1 - precision if got else 0.0)


def _order(got: list[str], want: list[str], shared: Counter[str]) -> float:
    def keep(words: list[str]) -> list[str]:
        budget = Counter(shared)
        kept = []
        for word in words:
            if budget[word] > 0:
                budget[word] -= 1
                kept.append(word)
        return kept

    a, b = keep(got), keep(want)
    return LCSseq.similarity(a, b) / max(1, len(b))


def _checks(doc: dict[str, Any], text: str, error: str | None) -> list[tuple[str, bool]]:
    """The hand-written facts a reader must get right on this document."""
    special = set(doc["special"])
    words = _words(text)
    out: list[tuple[str, bool]] = []
    if "encrypted-user-password" in special:
        out.append(("user password: no text", not words))
    if "encrypted-owner-only" in special:
        enough = "scanned-no-text-layer" in special or bool(words)
        out.append(("owner password: reads", enough and error is None))
    if "scanned-no-text-layer" in special:
        out.append(("scan: invents no words", len(words) <= 2 * doc["pages"]))
    if "broken" in special:
        out.append(("broken: does not crash", error is None or "Error" in (error or "")))
    if doc["truth"] and doc["truth_scope"] != "full":
        run = _words(_truth_text(doc))
        out.append(("partial truth found", _contains_run(words, run)))
    if "cjk" in special and doc["truth"]:
        truth = _truth_text(doc)
        spurious = len(_CJK_SPACE.findall(text)) <= len(_CJK_SPACE.findall(truth))
        out.append(("cjk: no spurious spaces", spurious and bool(_CJK.search(text))))
    if "rtl" in special and doc["truth"]:
        out.append(("rtl: logical order", score(text, _truth_text(doc)).f1 >= 0.8))
    if "two-column" in special and doc["truth"]:
        out.append(("columns: read in turn", score(text, _truth_text(doc)).order >= 0.9))
    if doc["truth"] and not special & {"scanned-no-text-layer"}:
        out.append(("no ligature code points", not _LIGATURE.search(text)))
    return out


def _contains_run(words: list[str], run: list[str]) -> bool:
    if not run:
        return True
    joined, needle = " ".join(words), " ".join(run)
    return needle in joined


def _run(reader: str, path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", reader, str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"text": "", "cpu": 0.0, "mem_kib": 0, "error": f"crash: {tail[0][:120]}"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _summary(rows: list[dict[str, Any]], reader: str) -> str:
    mine = [r for r in rows if r["reader"] == reader]
    scored = [r for r in mine if r["score"] is not None]

    def mean(key: str) -> float:
        return sum(getattr(r["score"], key) for r in scored) / max(1, len(scored))

    pages = sum(r["pages"] for r in mine)
    cpu = sum(r["cpu"] for r in mine) / max(1, pages) * 1000
    mem = sorted(r["mem_kib"] for r in mine)
    checks = [ok for r in mine for _, ok in r["checks"]]
    return (
        f"| {reader} | {mean('f1'):.3f} | {mean('order'):.3f} | {mean('missing'):.3f} "
        f"| {mean('invented'):.3f} | {sum(checks)}/{len(checks)} | {cpu:.1f} "
        f"| {mem[len(mem) // 2] / 1024:.1f} / {mem[-1] / 1024:.1f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", nargs=2, metavar=("READER", "PATH"))
    parser.add_argument("--only", default=",".join(READERS))
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--half", choices=("tune", "held-out"), help="score one half only")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if args.worker:
        _worker(*args.worker)
        return 0
    readers = [r for r in args.only.split(",") if r]
    docs = sorted(
        json.loads((DATA / "index.json").read_text())["documents"], key=lambda d: d["file"]
    )
    if args.limit:
        docs = docs[: args.limit]
    rows: list[dict[str, Any]] = []
    for position, doc in enumerate(docs):
        if args.half and args.half != ("tune" if position % 2 == 0 else "held-out"):
            continue
        for reader in readers:  # readers take turns document by document: same machine load
            got = _run(reader, DATA / doc["file"])
            full = (
                doc["truth"]
                and _words(_truth_text(doc))
                and doc["truth_scope"] == "full"
                and "scanned-no-text-layer" not in doc["special"]
            )
            rows.append(
                {
                    "reader": reader,
                    "doc": doc["file"],
                    "half": "tune" if position % 2 == 0 else "held-out",
                    "pages": doc["pages"],
                    "cpu": got["cpu"],
                    "mem_kib": got["mem_kib"],
                    "score": score(got["text"], _truth_text(doc)) if full else None,
                    "checks": _checks(doc, got["text"], got["error"]),
                    "error": got["error"],
                }
            )
            if args.verbose:
                row = rows[-1]
                failed = [name for name, ok in row["checks"] if not ok]
                print(row["half"], reader, doc["file"], row["score"], failed, row["error"] or "")
    header = (
        "| reader | word F1 | order | missing | invented | checks | CPU ms/page "
        "| peak MiB median / max |\n|---|---|---|---|---|---|---|---|"
    )
    for half in ("tune", "held-out", None):
        chosen = [r for r in rows if half is None or r["half"] == half]
        if not chosen:
            continue
        count = len({r["doc"] for r in chosen})
        print(f"\n### {half or 'all'} ({count} documents)\n\n{header}")
        for reader in readers:
            print(_summary(chosen, reader))
    return 0


if __name__ == "__main__":
    sys.exit(main())
