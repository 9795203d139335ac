"""docs/evidence-tools.md says where a revision's search passages are cut: by the use case
before the write (`research/evidence/passages.py`), never in the store's transaction. The
page once said the write transaction cut them with extract/passages.py; this holds the
words to the code."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "evidence-tools.md"
PACKAGE = ROOT / "src" / "sosoapi"


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_the_doc_names_the_use_case_that_cuts_the_passages() -> None:
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert "cut into passages by the use case before it is written" in text
    assert (
        "(`research/evidence/passages.py`, with the cutting rules of `extract/passages.py`)" in text
    )
    # the settle's writes carry passages from that module ...
    identity = PACKAGE / "research" / "evidence" / "identity.py"
    assert "sosoapi.research.evidence.passages" in _imports(identity)
    # ... and no store module cuts any: it imports neither module
    for path in (PACKAGE / "store").rglob("*.py"):
        cutting = {"sosoapi.research.evidence.passages", "sosoapi.extract.passages"}
        assert not cutting & _imports(path), path
