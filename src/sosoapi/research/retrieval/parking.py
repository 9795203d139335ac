"""A receipt whose origin's turn comes after the read's deadline waits `pending` for it.

The worker keeps its politeness reservation and its lease: the receipt goes back to
`pending` under this instance's lease (so no other instance starts it, and a call that
runs out of wait budget answers `pending`; a replay collects the result), and to
`running` again at the turn. If the instance dies meanwhile, the lease runs out and any
instance resumes the pending receipt. If the instance stops meanwhile, it hands the
receipt back (pending, unleased: `ReceiptWorkers.wind_down`) rather than hold its
shutdown until the turn. A turn after the receipt's window (`valid_until`) is refused:
the read settles `rate_limited`, with the turn as `retry_after_seconds`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

import anyio

from sosoapi.progress import report
from sosoapi.research.ports import RetrievalsRepo
from sosoapi.store.records import RetrievalRecord

log = logging.getLogger("sosoapi.receipts")


class LeaseLost(Exception):
    """The receipt is no longer this instance's to read (settled, cancelled, taken over)."""


class ParkedTurn:
    """The `turns.Keeper` of one receipt's read, run by the worker that holds its lease."""

    def __init__(
        self,
        retrievals: RetrievalsRepo,
        record: RetrievalRecord,
        owner: str,
        lease_seconds: float,
        clock: Callable[[], datetime],
        watch: Callable[[str, bool], None],
    ) -> None:
        self._watch = watch  # told (receipt id, parked) when the read parks and resumes
        self._retrievals = retrievals
        self._record = record
        self._owner = owner
        self._lease = lease_seconds
        self._clock = clock

    async def park(self, seconds: float) -> bool:
        """Wait for a turn inside the receipt's window, `pending` meanwhile; refuse a later one."""
        record = self._record
        if self._clock() + timedelta(seconds=seconds) >= record.valid_until:
            log.info("retrieval turn after its window id=%s wait=%.1fs", record.id, seconds)
            return False
        parked = await anyio.to_thread.run_sync(
            self._retrievals.park, record.id, self._owner, self._lease
        )
        if not parked:
            raise LeaseLost(record.id)
        log.info("retrieval pending for the origin's turn id=%s wait=%.1fs", record.id, seconds)
        self._watch(record.id, True)
        report("queued")
        return True

    async def resume(self) -> None:
        """The turn has come: `running` again under the same lease, or the read stops."""
        self._watch(self._record.id, False)
        resumed = await anyio.to_thread.run_sync(
            self._retrievals.acquire, self._record.id, self._owner, self._lease
        )
        if resumed is None:
            raise LeaseLost(self._record.id)
        report("connecting")
