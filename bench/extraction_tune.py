"""Fast tuning loop for the main-text rules: the hybrid's F1 on both halves in seconds.

Usage (from the project root; data from $SOSOAPI_BENCH_DATA, default ../shared/data):

    .venv/bin/python bench/extraction_tune.py [--cache FILE] [--set FIELD=VALUE ...]
                                              [--half both|even|odd] [--sets NAME,...]

trafilatura is the slow part of a run and does not change while our rules are tuned, so
its text (on the bounded markup, as the hybrid calls it) is computed once per page and kept
in the cache file. Each run then reruns our own pipeline from the page bytes, takes
trafilatura's cached text where ours is not `confident`, applies the furniture lines and the
contract's cut (`--text-max`), and prints pooled F1 for the even half (tuning) and the odd
half (held out), our extractor alone, and the share of pages sent to the fallback. `--set`
sets a field of the extractor's `Tuning` (extract/html_tuning.py) for one run, for example
`--set short=40`: the one value the rules take their thresholds from, so the loop reaches
into no module's private constants. CPU ratios
come from bench/extraction.py. `--sets` scores other dev sets too (each with its own cache
file beside `--cache`); sets with a gold body also print mean token F1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


from extraction import (  # noqa: E402
    DATASETS,
    Case,
    Score,
    collapse,
    load_cases,
    readability,
    token_f1,
)
from sosoapi.extract import furniture_lines, html_main  # noqa: E402
from sosoapi.extract.html_bounds import bound_markup  # noqa: E402
from sosoapi.extract.html_repair import close_runaway_title  # noqa: E402
from sosoapi.extract.html_trafilatura import trafilatura_text  # noqa: E402
from sosoapi.extract.html_tuning import TUNING, Tuning  # noqa: E402
from sosoapi.extract.limits import TEXT_MAX, cut_at_paragraph_end  # noqa: E402


def _bounded(case: Case) -> str:
    """The markup the pipeline parses and hands to a fallback."""
    return bound_markup(close_runaway_title(case.markup)).markup


def _readability_text(case: Case) -> str:
    return readability(dataclasses.replace(case, markup=_bounded(case)))


FALLBACKS: dict[str, Callable[[Case], str]] = {
    "trafilatura": lambda case: trafilatura_text(
        bound_markup(close_runaway_title(case.markup)), url=case.url
    ),
    "readability-lxml": _readability_text,
}


def trafilatura_cache(
    cases: list[Case], path: Path, fallback: str = "trafilatura"
) -> dict[str, str]:
    """The fallback's text per page (trafilatura's, as shipped), computed once and kept in
    `path` (JSON)."""
    if path.exists():
        texts: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
        return texts
    run = FALLBACKS[fallback]
    texts = {}
    for case in cases:
        try:
            texts[case.name] = run(case)
        except Exception:  # a peer that fails on a page gives no text there
            texts[case.name] = ""
    path.write_text(json.dumps(texts), encoding="utf-8")
    return texts


def apply_override(spec: str, tuning: Tuning) -> Tuning:
    """Apply `FIELD=value` to a copy of `tuning`, keeping the field's type."""
    name, _, value = spec.partition("=")
    fields = {f.name for f in dataclasses.fields(tuning)}
    if name not in fields or not value:
        raise SystemExit(
            f"--set {spec!r}: expected FIELD=VALUE with FIELD a field of Tuning "
            f"({', '.join(sorted(fields))})"
        )
    kind = type(getattr(tuning, name))
    return dataclasses.replace(tuning, **{name: kind(value)})


def add_counts(text: str, case: Case, into: Score) -> None:
    found = collapse(text)
    hits = sum(segment in found for segment in case.must_contain)
    into.tp += hits
    into.fn += len(case.must_contain) - hits
    false_hits = sum(segment in found for segment in case.must_not_contain)
    into.fp += false_hits
    into.tn += len(case.must_not_contain) - false_hits
    if case.gold is not None:
        into.token_f1_sum += token_f1(text, case.gold)
        into.gold_pages += 1


def score(
    cases: list[Case],
    traf: dict[str, str],
    text_max: int = TEXT_MAX,
    halves: tuple[int, ...] = (0, 1),
    tuning: Tuning = TUNING,
) -> None:
    """Print hybrid and ours-alone F1 per half, and the share of pages sent to the fallback."""
    for half in halves:
        hybrid, alone, unsure, pages = Score(), Score(), 0, 0
        for index, case in enumerate(cases):
            if index % 2 != half:
                continue
            tree = bound_markup(close_runaway_title(case.markup)).parse()
            main = html_main.extract_main(tree, tuning)
            ours = _final(main.text, text_max)
            chosen = ours
            if not main.confident:
                unsure += 1
                chosen = _final(traf[case.name] or main.text, text_max)
            add_counts(chosen, case, hybrid)
            add_counts(ours, case, alone)
            pages += 1
        gold = hybrid.token_f1()
        print(
            f"{('even', 'odd')[half]:<5} hybrid F1 {hybrid.f1():.5f} (found {hybrid.tp}, "
            f"missed {hybrid.fn}, false {hybrid.fp})  ours alone {alone.f1():.5f}  "
            + (f"token F1 {gold:.5f} (alone {alone.token_f1() or 0.0:.5f})  " if gold else "")
            + f"to the fallback {unsure / pages:.3f}"
        )


def _final(text: str, text_max: int) -> str:
    """The text as the pipeline returns it: furniture lines dropped, cut to the bound."""
    return cut_at_paragraph_end(furniture_lines.drop_furniture_lines(text), text_max)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/sosoapi-trafilatura-cache.json"))
    parser.add_argument("--sets", default=DATASETS[0], help="comma-separated dev sets")
    parser.add_argument(
        "--fallback",
        choices=sorted(FALLBACKS),
        default="trafilatura",
        help="the extractor run where ours is unsure (trafilatura ships; the other is a candidate)",
    )
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    parser.add_argument(
        "--text-max",
        type=int,
        default=TEXT_MAX,
        help="where the text is cut (default the contract's bound; larger shows what it costs)",
    )
    parser.add_argument(
        "--half",
        choices=("both", "even", "odd"),
        default="both",
        help="score one half only: `even` keeps the held-out half out of sight while tuning",
    )
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    data = Path(os.environ.get("SOSOAPI_BENCH_DATA", ROOT.parent / "shared" / "data"))
    tuning = TUNING
    for spec in args.overrides:
        tuning = apply_override(spec, tuning)
    halves = {"both": (0, 1), "even": (0,), "odd": (1,)}[args.half]
    for dataset in [name.strip() for name in args.sets.split(",") if name.strip()]:
        cases = load_cases(data, None, dataset)
        cache = args.cache
        if args.fallback != "trafilatura":
            cache = cache.with_name(f"{cache.stem}-{args.fallback}{cache.suffix}")
        if dataset != DATASETS[0]:
            cache = cache.with_name(f"{cache.stem}-{dataset}{cache.suffix}")
        print(dataset, "fallback", args.fallback)
        traf = trafilatura_cache(cases, cache, args.fallback)
        score(cases, traf, args.text_max, halves, tuning)


if __name__ == "__main__":
    main()
