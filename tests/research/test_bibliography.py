"""The export's bibliography cannot be forged by the pages it cites: hostile titles,
authors and URLs read back, with two real BibTeX parsers, as one entry per source with
every field intact, and the entry's URL is the capture's, never the page's claim."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

import bibtexparser
import pybtex.database
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from pylatexenc import latex2text

from sosoapi.research.corpora.citations import bibtex_entry, csl_item

# LaTeX's text commands as the characters they print (pylatexenc lacks or approximates them).
_BRACES_TEXT = latex2text.get_default_latex_context_db()
_BRACES_TEXT.add_context_category(
    "braces",
    macros=[
        latex2text.MacroTextSpec("textbraceleft", "{"),
        latex2text.MacroTextSpec("textbraceright", "}"),
        latex2text.MacroTextSpec("textasciicircum", "^"),
        latex2text.MacroTextSpec("textasciitilde", "~"),
    ],
    prepend=True,
)
_LATEX = latex2text.LatexNodes2Text(
    latex_context=_BRACES_TEXT, math_mode="verbatim", strict_latex_spaces=True
)

# What a hostile page puts in its markup: BibTeX and LaTeX syntax, name separators,
# entry starts, control characters and text from outside ASCII.
_HOSTILE = st.lists(
    st.one_of(
        st.sampled_from(list("{}\\%&$#_^~@,=\"'()[]-. \n\t\x00")),
        st.sampled_from([" and ", " AND ", "others", "@online{forged,", "},", "\\url{"]),
        st.characters(codec="utf-8", categories=["L", "N", "P", "S", "Zs"]),
    ),
    max_size=25,
).map(lambda parts: "".join(parts))
_WORDS = st.text(st.characters(codec="utf-8", categories=["L"]), min_size=1, max_size=8)
_NAME = st.one_of(
    _HOSTILE,
    st.builds(lambda f, g: f"{f}, {g}", _HOSTILE, _HOSTILE),
    st.builds(lambda g, f: f"{g} {f}", _WORDS, _WORDS),
)
_URL = st.builds(lambda path: "https://origin.test/" + path, _HOSTILE)


def _plain(value: str) -> str:
    """Whitespace as BibTeX reads it: any run one space."""
    return " ".join(value.replace("\x00", " ").split())


def _decoded(latex: str) -> str:
    return _plain(_LATEX.latex_to_text(latex))


def _item(n: int, title: str, authors: list[str], url: str, canonical: str) -> dict[str, Any]:
    content = {
        "kind": "url_text",
        "title": title,
        "provenance": {"source_url": url, "retrieved_at": "2025-03-01T10:00:00Z"},
    }
    citation = {
        "authors": {"value": authors, "source": "citation_meta", "key": "citation_author"},
        "canonical_url": {"value": canonical, "source": "link_canonical", "key": "canonical"},
    }
    return csl_item(f"sosoapi-{n:08x}-r1", content, citation, url)


# shrinking through two parsers and a LaTeX decoder takes minutes; a failure still
# prints its example
@settings(max_examples=200, deadline=None, phases=[Phase.explicit, Phase.generate])
@given(
    st.lists(st.tuples(_HOSTILE, st.lists(_NAME, max_size=3), _URL, _URL), min_size=1, max_size=3)
)
def test_hostile_fields_read_back_as_one_entry_each_with_every_field_intact(
    sources: list[tuple[str, list[str], str, str]],
) -> None:
    items = [_item(n, *source) for n, source in enumerate(sources)]
    bib = "\n".join(bibtex_entry(item["id"], item) for item in items)

    by_pybtex = pybtex.database.parse_string(bib, "bibtex").entries
    by_bibtexparser = bibtexparser.parse_string(bib)
    assert not by_bibtexparser.failed_blocks
    keys = [item["id"] for item in items]
    assert list(by_pybtex.keys()) == keys
    assert [entry.key for entry in by_bibtexparser.entries] == keys

    for item, entry, other in zip(items, by_pybtex.values(), by_bibtexparser.entries, strict=True):
        fields = {f.key: f.value for f in other.fields}
        assert set(fields) == set(entry.fields) | ({"author"} if "author" in item else set())
        assert _decoded(entry.fields.get("title", "")) == _plain(item.get("title", ""))
        # the URL is the capture's, percent-encoded: nothing in it is BibTeX or LaTeX syntax
        url = entry.fields["url"]
        assert url == fields["url"] and unquote(url) == unquote(item["URL"])
        assert not set(url) & set('{}\\ "\n') and url.isascii()
        if "note" in item:
            assert _decoded(entry.fields["note"]) == _plain(item["note"])
        people = entry.persons.get("author", [])
        assert len(people) == len(item.get("author", []))
        for person, name in zip(people, item.get("author", []), strict=True):
            if "literal" in name:
                assert _decoded(str(person)) == _plain(name["literal"])
            else:
                family = " ".join(person.prelast_names + person.last_names)
                assert _decoded(family) == _plain(name["family"])
                given_names = person.first_names + person.middle_names
                assert _decoded(" ".join(given_names)) == _plain(name["given"])


def test_a_forged_canonical_url_stays_a_note_and_forges_no_entry() -> None:
    """The attack from issue 36: a canonical href that closes the url field and opens an
    entry of its own; and a page claiming to be another site."""
    forged = "https://origin.test/a}}@online{forged,title={Forged},author={Mallory, Eve},note={"
    item = _item(1, "Harbour } report {", ["Lovelace}, Ada"], "https://origin.test/a", forged)
    bib = bibtex_entry(item["id"], item)

    assert item["URL"] == "https://origin.test/a"
    assert item["note"] == f"Canonical URL declared by the page: {forged}"
    assert json.loads(json.dumps(item)) == item
    entries = pybtex.database.parse_string(bib, "bibtex").entries
    assert list(entries) == [item["id"]]
    assert entries[item["id"]].fields["url"] == "https://origin.test/a"
    assert [entry.key for entry in bibtexparser.parse_string(bib).entries] == [item["id"]]


def test_a_canonical_url_equal_to_the_capture_adds_no_note() -> None:
    item = _item(2, "Report", [], "https://origin.test/a", "https://origin.test/a")
    assert "note" not in item and item["URL"] == "https://origin.test/a"
