"""Capacity of the heavy-read pool (`research/heavy.py`): diffs, quote checks, searches."""

from __future__ import annotations

from dataclasses import dataclass

from sosoapi.research.retrieval.settings import SlotBudget


@dataclass(frozen=True, slots=True)
class HeavyReadSettings(SlotBudget):
    slots: int = 2  # SOSOAPI_HEAVY_READ_SLOTS: heavy jobs running at once, all workspaces
    per_workspace: int = 0  # SOSOAPI_HEAVY_READ_SLOTS_PER_WORKSPACE; 0: half of `slots`
    max_queued_per_workspace: int = 64  # SOSOAPI_HEAVY_READ_MAX_QUEUED_PER_WORKSPACE
