"""A receipt whose origin's turn comes after the read's deadline waits `pending` for it.

The gate does not wait past a fetch's deadline: it answers the late turn as a value
(`egress.types.LateTurn`, the start it reserved kept), and `fetch_in_turn` asks the
receipt's `PendingUntilTurn` whether the read may wait that long. The worker keeps that
reservation and its lease: the receipt goes back to `pending` under this instance's
lease (so no other instance starts it, and a call that runs out of wait budget answers
`pending`; a replay collects the result), and to `running` again at the turn. If the
instance dies meanwhile, the lease runs out and any instance resumes the pending receipt.
If the instance stops meanwhile, it hands the receipt back (pending, unleased:
`ReceiptWorkers.wind_down`) rather than hold its shutdown until the turn. A turn after the
receipt's window (`valid_until`) is refused: the read settles `rate_limited`, with the
turn as `retry_after_seconds`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

import anyio

from sosoapi.egress.types import FetchOutcome, LateTurn, Spool
from sosoapi.progress import report
from sosoapi.research.ports import RetrievalsRepo
from sosoapi.store.records import RetrievalRecord

log = logging.getLogger("sosoapi.receipts")


class LeaseLost(Exception):
    """The receipt is no longer this instance's to read (settled, cancelled, taken over)."""


class Gate(Protocol):
    """What a read that may wait for late turns needs of the egress gate (`Egress`)."""

    async def fetch(
        self,
        url: str,
        *,
        accept: Sequence[str],
        late_turns: bool = False,
        spool: Spool | None = None,
    ) -> FetchOutcome: ...

    async def resume(self, turn: LateTurn, spool: Spool | None = None) -> FetchOutcome: ...

    async def forgo(self, turn: LateTurn) -> FetchOutcome: ...


class PendingUntilTurn:
    """Decides, for one receipt's read, whether it waits `pending` for a late turn; made
    by the worker that holds the receipt's lease and handed to its reader."""

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


async def fetch_in_turn(
    gate: Gate,
    receipt: PendingUntilTurn,
    url: str,
    *,
    accept: Sequence[str],
    spool: Spool | None = None,
) -> FetchOutcome:
    """`gate.fetch`, where a late turn is waited for `pending` when the receipt allows it
    (then fetched at the turn), else given back: `rate_limited` with the turn as retry. A
    `spool` (a document's body) goes with the fetch and with its resumed turn."""
    outcome = await gate.fetch(url, accept=accept, late_turns=True, spool=spool)
    while (late := outcome.late_turn) is not None:
        try:
            if not await receipt.park(late.seconds):
                return await gate.forgo(late)
            await anyio.sleep(late.seconds)
            await receipt.resume()
        except BaseException:  # stopped, or the lease lost: the start goes to the next read
            with anyio.CancelScope(shield=True):
                await gate.forgo(late)
            raise
        outcome = await gate.resume(late, spool)
    return outcome
