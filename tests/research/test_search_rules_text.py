"""What a search query means is said once (`QUERY_RULES`) and quoted where people read it.

The console's hint drifted from the search once ("every word must occur in one passage"
stayed after words could sit anywhere in a revision); the console now renders the constant
(tests/web/test_console.py), and the docs must quote it word for word.
"""

from __future__ import annotations

from pathlib import Path

from sosoapi.research.evidence.search import QUERY_RULES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "evidence-tools.md"


def test_the_evidence_tools_doc_quotes_the_query_rules() -> None:
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert QUERY_RULES in text
