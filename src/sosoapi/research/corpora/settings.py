"""Capacity of a server's corpus exports (`research/corpora/export_slots.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from sosoapi.research.retrieval.settings import SlotBudget


@dataclass(frozen=True, slots=True)
class ExportSettings(SlotBudget):
    slots: int = 4  # SOSOAPI_EXPORT_SLOTS: exports open at once (building or sent), all workspaces
    per_workspace: int = 0  # SOSOAPI_EXPORT_SLOTS_PER_WORKSPACE; 0: half of `slots`
    max_queued_per_workspace: int = 8  # SOSOAPI_EXPORT_MAX_QUEUED_PER_WORKSPACE
