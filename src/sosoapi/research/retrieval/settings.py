"""Timing and capacity of receipts and workers, and the bounds of one parse."""

from __future__ import annotations

from dataclasses import dataclass

from sosoapi.contract.document_bounds import PAGES_CEILING
from sosoapi.extract.limits import TEXT_MAX, WHOLE_TEXT_CEILING, WHOLE_TEXT_DEFAULT

# The evidence text bounds config.py checks SOSOAPI_EVIDENCE_TEXT_MAX against; their one
# home is extract/limits.py, named here because config.py reads only settings modules.
__all__ = [
    "PAGES_CEILING", "TEXT_MAX", "WHOLE_TEXT_CEILING", "WHOLE_TEXT_DEFAULT", "ReceiptSettings",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class ReceiptSettings:
    idempotency_window_seconds: float = 24 * 3600
    wait_budget_seconds: float = 25.0
    lease_seconds: float = 30.0
    sweep_interval_seconds: float = 10.0
    max_concurrent_retrievals: int = 16
    shutdown_grace_seconds: float = 10.0
    slots_per_workspace: int = 0  # 0: half of max_concurrent_retrievals (at least 1)
    max_queued_per_workspace: int = 500
    evidence_text_max: int = WHOLE_TEXT_DEFAULT  # SOSOAPI_EVIDENCE_TEXT_MAX: whole text kept
    keep_captures: bool = True  # keep the exchanges each revision was read from
    # The document tool's bounds (docs/product.md, "Documents"): a PDF's bytes, streamed
    # to a private file (SOSOAPI_DOCUMENT_MAX_BYTES), and the pages read of it
    # (SOSOAPI_DOCUMENT_MAX_PAGES, at most contract/documents.py's PAGES_CEILING).
    document_max_bytes: int = 50 << 20
    document_max_pages: int = 2_000

    def __post_init__(self) -> None:
        if not self.slots_per_workspace:
            share = max(1, self.max_concurrent_retrievals // 2)
            object.__setattr__(self, "slots_per_workspace", share)

    @property
    def renew_interval_seconds(self) -> float:
        return self.lease_seconds / 3


@dataclass(frozen=True, slots=True)
class ParseBounds:
    """What one parse of third-party bytes may take before its worker is killed
    (research/offload.py): SOSOAPI_PARSE_DEADLINE_SECONDS, SOSOAPI_PARSE_MEMORY_MB."""

    deadline_seconds: float = 10.0  # wall clock; a page of the node bound parses in ~2 s
    memory_mb: int = 1024  # address space a parse may add to its idle worker


@dataclass(frozen=True, slots=True)
class SlotBudget:
    """A pool of slots shared fairly across workspaces (`fairness.FairSlots`): `slots` at
    once in all, at most `per_workspace` held by one (0: half of `slots`, at least one,
    never more than `slots`), at most `max_queued_per_workspace` waiting per workspace."""

    slots: int
    per_workspace: int
    max_queued_per_workspace: int

    def __post_init__(self) -> None:
        share = self.per_workspace or max(1, self.slots // 2)
        object.__setattr__(self, "per_workspace", min(share, self.slots))
