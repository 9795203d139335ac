"""Retrieval slots shared fairly between workspaces.

First come, first served let one workspace's burst of slow pages make every other
workspace wait behind it. Here each workspace has its own queue and free slots are handed
round-robin across the workspaces that are waiting; one workspace never holds more than
`per_workspace` slots (by default half), so another workspace's read starts at once. What
one workspace may have waiting is bounded too: past `max_waiting`, a new call is refused
before anything is claimed, and the caller retries later with the same mutation_id.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio

from sosoapi.contract.errors import ErrorCode, ServiceError

RETRY_AFTER_SECONDS = 5


@dataclass
class _Lane:
    waiters: deque[anyio.Event] = field(default_factory=deque)
    holding: int = 0
    waiting: int = 0  # reserved or queued, not yet holding a slot


def busy(workspace_id: str, max_waiting: int) -> ServiceError:
    return ServiceError(
        ErrorCode.BUSY,
        f"Workspace {workspace_id} already has {max_waiting} reads waiting for a slot "
        f"(SOSOAPI_MAX_QUEUED_PER_WORKSPACE); nothing was claimed. Retry after "
        f"{RETRY_AFTER_SECONDS} s with the same mutation_id.",
        "workspace_id",
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )


Refusal = Callable[[str, int], ServiceError]  # (workspace_id, max_waiting) -> the error


class FairSlots:
    """`slots` slots; per workspace a FIFO queue, across workspaces round-robin. `refuse`
    words the error past the queue bound (retrievals' by default; the heavy reads of
    `research/heavy.py` name their own settings)."""

    def __init__(
        self, slots: int, per_workspace: int, max_waiting: int, refuse: Refusal = busy
    ) -> None:
        self.slots = slots
        self.per_workspace = max(1, min(per_workspace, slots))
        self.max_waiting = max_waiting
        self.refuse = refuse
        self._free = slots
        self._lanes: dict[str, _Lane] = {}
        self._turns: OrderedDict[str, None] = OrderedDict()  # lanes with waiters, next first

    def reserve(self, workspace_id: str) -> None:
        """Count a call that will queue soon; refuse it (nothing claimed) past the bound."""
        lane = self._lanes.setdefault(workspace_id, _Lane())
        if lane.waiting >= self.max_waiting:
            raise self.refuse(workspace_id, self.max_waiting)
        lane.waiting += 1

    def unreserve(self, workspace_id: str) -> None:
        """A reserved call that will not queue after all (its key was already claimed)."""
        lane = self._lanes[workspace_id]
        lane.waiting -= 1
        self._forget(workspace_id, lane)

    def waiting(self, workspace_id: str) -> int:
        lane = self._lanes.get(workspace_id)
        return lane.waiting if lane else 0

    def hold_now(self, workspace_id: str) -> bool:
        """Turn `workspace_id`'s reserved place into a held slot at once, if one is free, the
        workspace is under its share and no one is waiting (so no turn is jumped); False
        leaves the reservation as it was. A held slot is given back with `release`."""
        lane = self._lanes[workspace_id]
        if not self._free or self._turns or lane.holding >= self.per_workspace:
            return False
        lane.waiting -= 1
        lane.holding += 1
        self._free -= 1
        return True

    def release(self, workspace_id: str) -> None:
        """Give back a slot taken with `hold_now` or `take`."""
        self._release(workspace_id)

    @asynccontextmanager
    async def slot(self, workspace_id: str, *, reserved: bool = False) -> AsyncIterator[None]:
        """Hold one slot for `workspace_id` while the block runs."""
        await self.take(workspace_id, reserved=reserved)
        try:
            yield
        finally:
            self._release(workspace_id)

    async def take(self, workspace_id: str, *, reserved: bool = False) -> None:
        """Wait in `workspace_id`'s queue for one slot, held until `release` (for a hold
        that outlives the block that took it: an export's answer); cancelled, it leaves
        the queue and holds nothing."""
        lane = self._lanes.setdefault(workspace_id, _Lane())
        if not reserved:
            lane.waiting += 1
        granted = anyio.Event()
        lane.waiters.append(granted)
        self._turns[workspace_id] = None
        self._hand_out()
        try:
            await granted.wait()
        except BaseException:
            if granted.is_set():
                self._release(workspace_id)
            else:
                lane.waiters.remove(granted)
                lane.waiting -= 1
                if not lane.waiters:
                    self._turns.pop(workspace_id, None)
                self._forget(workspace_id, lane)
            raise

    def _hand_out(self) -> None:
        """Give free slots to the waiting lanes in turn, skipping lanes at their share."""
        passed = 0
        while self._free and self._turns and passed < len(self._turns):
            workspace_id = next(iter(self._turns))
            lane = self._lanes[workspace_id]
            self._turns.move_to_end(workspace_id)
            if lane.holding >= self.per_workspace:
                passed += 1
                continue
            passed = 0
            lane.waiters.popleft().set()
            lane.waiting -= 1
            lane.holding += 1
            self._free -= 1
            if not lane.waiters:
                del self._turns[workspace_id]

    def _release(self, workspace_id: str) -> None:
        lane = self._lanes[workspace_id]
        lane.holding -= 1
        self._free += 1
        self._forget(workspace_id, lane)
        self._hand_out()

    def _forget(self, workspace_id: str, lane: _Lane) -> None:
        if not (lane.holding or lane.waiting or lane.waiters):
            self._lanes.pop(workspace_id, None)
            self._turns.pop(workspace_id, None)
