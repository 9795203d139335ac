"""Lexbor first, the model only where needed (extract/lexbor_budget.py): in a process that
allows the budget, a page whose tree is within the bounds reads exactly as the model-first
read does, and a page whose tree passes a bound is cut by the model as before.

These run in the test's own process with the budget allowed, and raised far past what
any page here takes (a tenth of a second at most): a parse past it would kill the test's
own process. tests/research/test_offload.py shows the budget and the pool's retry."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sosoapi.extract import lexbor_budget
from sosoapi.extract.html import decode_body, document_of
from sosoapi.extract.html_bounds import MAX_DEPTH, bound_markup

DATA = Path(__file__).resolve().parents[1] / "data"
HOSTILE = DATA / "hostile"
# Every real page of tests/data (captured from the web by other projects: each folder's
# README names its source and licence).
REAL_PAGES = sorted(
    str(path.relative_to(DATA))
    for folder in ("pages", "walls", "sign_in_widgets")
    for path in (DATA / folder).rglob("*.html*")
)


def _allow(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process lets Lexbor parse first, as a parsing worker does (budget raised)."""
    monkeypatch.setattr(lexbor_budget, "SECONDS", 60.0)
    monkeypatch.setattr(lexbor_budget, "_allowed", True)


@pytest.fixture
def lexbor_first(monkeypatch: pytest.MonkeyPatch) -> None:
    _allow(monkeypatch)


def _read(relative: str) -> bytes:
    raw = (DATA / relative).read_bytes()
    return gzip.decompress(raw) if relative.endswith(".gz") else raw


def _document(body: bytes) -> object:
    decoded = decode_body(body, "text/html", None)
    assert decoded is not None
    return document_of(decoded, content_language=None, url="https://example.org/page", cite=True)


def test_the_real_pages_are_many() -> None:
    assert len(REAL_PAGES) >= 80


@pytest.mark.parametrize("relative", REAL_PAGES)
def test_a_real_page_reads_the_same_lexbor_first_as_model_first(
    relative: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _read(relative)
    model_first = _document(body)
    _allow(monkeypatch)
    assert _document(body) == model_first


@pytest.mark.usefixtures("lexbor_first")
def test_a_page_within_the_bounds_is_parsed_once_and_left_as_it_is() -> None:
    markup = _read("pages/flowfx.de.tmux.html.gz").decode()
    bounded = bound_markup(markup)
    assert bounded.markup == markup and not bounded.nodes_limited
    assert len(bounded.built) == 1  # the tree the check parsed, for the first reader
    first = bounded.parse()
    assert bounded.built == [] and bounded.parse() is not first


@pytest.mark.parametrize(
    "markup",
    [
        # Lexbor builds 491,406 elements of it in a tenth of a second: past the node bound
        gzip.decompress((HOSTILE / "formatting_clones.html.gz").read_bytes()).decode(),
        # cheap for Lexbor at this depth, but past the depth bound
        "<p>One sentence on top.</p>" + "<div>" * (MAX_DEPTH + 200) + "<p>Deep.</p>",
    ],
    ids=["past-the-node-bound", "past-the-depth-bound"],
)
def test_a_tree_past_a_bound_is_cut_by_the_model_as_before(
    markup: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_first = bound_markup(markup)
    _allow(monkeypatch)
    lexbor_first = bound_markup(markup)
    assert lexbor_first.nodes_limited and lexbor_first.built == []
    assert lexbor_first == model_first


def test_suspended_means_model_first(monkeypatch: pytest.MonkeyPatch) -> None:
    _allow(monkeypatch)
    with lexbor_budget.suspended():
        assert not lexbor_budget.allowed()
        assert bound_markup("<p>Plain.</p>").built == []
    assert lexbor_budget.allowed()
