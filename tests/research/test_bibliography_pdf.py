"""A PDF's bibliography entry cannot be forged by the document's own metadata: hostile
titles, authors and subjects (Info and XMP are whatever the file's maker wrote) read
back, with two BibTeX parsers, as one `@misc` entry each with every field intact."""

from __future__ import annotations

from typing import Any

import bibtexparser
import pybtex.database
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from sosoapi.research.corpora.citations import bibtex_entry, csl_item
from tests.research.test_bibliography import _HOSTILE, _NAME, _decoded, _plain


def _document(n: int, title: str, authors: list[str], subject: str) -> dict[str, Any]:
    content = {
        "kind": "pdf_text",
        "title": title or None,
        "authors": authors,
        "date": "2021-07-04T10:00:00+02:00",
        "subject": subject or None,
        "provenance": {"source_url": "https://origin.test/a.pdf", "language": "en"},
    }
    return csl_item(f"sosoapi-{n:08x}-r1", content, None, "https://origin.test/a.pdf")


@settings(max_examples=50, deadline=None, phases=[Phase.explicit, Phase.generate])
@given(st.lists(st.tuples(_HOSTILE, st.lists(_NAME, max_size=3), _HOSTILE), min_size=1,
                max_size=3))  # fmt: skip
def test_hostile_pdf_metadata_reads_back_as_one_misc_entry_each(
    documents: list[tuple[str, list[str], str]],
) -> None:
    items = [_document(n, *document) for n, document in enumerate(documents)]
    bib = "\n".join(bibtex_entry(item["id"], item) for item in items)
    by_pybtex = pybtex.database.parse_string(bib, "bibtex").entries
    by_bibtexparser = bibtexparser.parse_string(bib)
    assert not by_bibtexparser.failed_blocks
    assert [e.entry_type for e in by_bibtexparser.entries] == ["misc"] * len(items)
    assert list(by_pybtex.keys()) == [item["id"] for item in items]
    for item, entry in zip(items, by_pybtex.values(), strict=True):
        assert item["type"] == "document" and item["issued"] == {"date-parts": [[2021, 7, 4]]}
        assert _decoded(entry.fields.get("title", "")) == _plain(item.get("title", ""))
        assert _decoded(entry.fields.get("abstract", "")) == _plain(item.get("abstract", ""))
        assert entry.fields["date"] == "2021-07-04" and entry.fields["langid"] == "en"
        assert len(entry.persons.get("author", [])) == len(item.get("author", []))
