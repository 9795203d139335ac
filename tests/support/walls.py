"""The corpus of pages that are not the source's content (tests/data/walls) and its checks."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.origin import Route

WALLS_DIR = Path(__file__).resolve().parent.parent / "data" / "walls"


@dataclass(frozen=True)
class WallCase:
    """One corpus page: how the origin serves it and how a retrieval must settle."""

    file: str
    status: int
    headers: dict[str, str]
    content_type: str
    expect_status: str
    expect_reason: str | None
    expect_warnings: list[str] | None
    must_contain: tuple[str, ...]
    must_not_contain: tuple[str, ...]
    judgement: str | None
    transports: bool

    @property
    def path(self) -> str:
        return "/" + self.file.removesuffix(".html")

    @property
    def body(self) -> bytes:
        return (WALLS_DIR / self.file).read_bytes()

    def route(self) -> Route:
        return Route(
            self.body, status=self.status, content_type=self.content_type, headers=self.headers
        )


def wall_cases() -> list[WallCase]:
    raw = json.loads((WALLS_DIR / "cases.json").read_text(encoding="utf-8"))
    return [
        WallCase(
            file=item["file"],
            status=item["status"],
            headers=item["headers"],
            content_type=item["content_type"],
            expect_status=item["expect"]["status"],
            expect_reason=item["expect"]["reason"],
            expect_warnings=item["expect"].get("warnings"),
            must_contain=tuple(item["must_contain"]),
            must_not_contain=tuple(item["must_not_contain"]),
            judgement=item["judgement"],
            transports=item.get("transports", False),
        )
        for item in raw
    ]


def collapse(text: str) -> str:
    return " ".join(text.split())


def assert_settles(case: WallCase, result: dict[str, Any], evidence: object = None) -> None:
    """The contract result of retrieving `case` is what the corpus says it must be."""
    got = (result["status"], result["reason"])
    assert got == (case.expect_status, case.expect_reason), (case.file, got, result["text"][:300])
    if case.expect_warnings is not None:
        assert result["warnings"] == case.expect_warnings, (case.file, result["warnings"])
    text = collapse(result["text"])
    for segment in case.must_contain:
        assert collapse(segment) in text, (case.file, segment, text[:400])
    for segment in case.must_not_contain:
        assert collapse(segment) not in text, (case.file, segment)
    if case.expect_status in ("ready", "partial"):
        assert result["provenance"]["content_kind"] == "document_text", case.file
        assert text, case.file
    else:
        assert result["text"] == "", case.file
        assert evidence is None, case.file
    if case.expect_status in ("blocked", "unavailable"):
        assert result["provenance"]["source_url"] is None, case.file
        assert result["title"] is None and result["description"] is None, case.file
