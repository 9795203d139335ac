"""Retrieval receipts: claim (with their mutation key), lease, settle, sweep.

One key space per workspace for every write tool: the (workspace_id, mutation_id) primary
key of `mutations` makes two racing claims produce one receipt. Only the lease holder can
settle; a lease that runs out is judged `unconfirmed` by whoever sweeps, so instances
sharing a database never judge each other's live work.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Float, bindparam, null, or_, select, update
from sqlalchemy.exc import IntegrityError

from sosoapi.contract.vocabulary import OPEN_STATES, State
from sosoapi.store.clock import db_time
from sosoapi.store.database import Database
from sosoapi.store.evidence_repo import record_revision
from sosoapi.store.mutations_repo import bound_key, keyed, mutation_values, read_mutation
from sosoapi.store.records import (
    EvidenceWrite,
    MutationRecord,
    NewMutation,
    RetrievalRecord,
    Settled,
    StorageUse,
    SweepCounts,
    from_row,
)
from sosoapi.store.tables import mutations, retrievals
from sosoapi.store.usage import used

# The statements every retrieval runs, built once (Database.prepared says why).
_INSERT_MUTATION = mutations.insert()
_INSERT_RETRIEVAL = retrievals.insert()
_SETTLED_VALUES = {
    "state": bindparam("new_state"),
    "result": bindparam("new_result"),
    "settled_at": bindparam("settled_at"),
    "lease_owner": null(),
    "status": bindparam("status"),
    "reason": bindparam("reason"),
    "cause": bindparam("cause"),
}
_THIS = retrievals.c.id == bindparam("retrieval_id")
_RETRIEVAL_UNDER_KEY = select(retrievals).where(bound_key(retrievals))
_SETTLE_OWNED = (
    update(retrievals)
    .where(
        _THIS, retrievals.c.state == State.RUNNING, retrievals.c.lease_owner == bindparam("owner")
    )
    .values(**_SETTLED_VALUES)
)
_SETTLE_OPEN = (
    update(retrievals).where(_THIS, retrievals.c.state.in_(OPEN_STATES)).values(**_SETTLED_VALUES)
)
_SET_EVIDENCE = (
    update(retrievals)
    .where(_THIS)
    .values(evidence_id=bindparam("evidence_id"), evidence_revision=bindparam("revision"))
)


def _insert_running(db: Database) -> Any:
    """A receipt inserted already leased: its lease runs from the database clock."""
    lease = db_time(db, bindparam("lease", type_=Float))
    return (
        retrievals.insert().values(lease_expires_at=lease).returning(retrievals.c.lease_expires_at)
    )


def _unleased(db: Database) -> Any:
    """No instance holds the receipt: no lease, or its lease ran out (a receipt parked
    for an origin's turn stays leased to the instance that waits)."""
    return or_(retrievals.c.lease_owner.is_(None), retrievals.c.lease_expires_at < db_time(db))


def _free_for(db: Database) -> Any:
    """A pending receipt `owner` may take: one no instance holds, or its own."""
    return or_(_unleased(db), retrievals.c.lease_owner == bindparam("owner"))


def _acquire(db: Database) -> Any:
    return (
        update(retrievals)
        .where(
            _THIS,
            retrievals.c.state == State.PENDING,
            retrievals.c.valid_until > db_time(db),
            _free_for(db),
        )
        .values(
            state=State.RUNNING,
            lease_owner=bindparam("owner"),
            lease_expires_at=db_time(db, bindparam("lease", type_=Float)),
        )
        .returning(*retrievals.c)
    )


def row_values(record: RetrievalRecord) -> dict[str, Any]:
    """A receipt's fields by name, for its insert: its own values, not copies. They are
    immutable (text, numbers, datetimes), and `dataclasses.asdict` deep-copied each one
    (a hundred Python calls for every claim)."""
    return {name: getattr(record, name) for name in record.__slots__}


class RetrievalRepository:
    def __init__(self, db: Database, storage_limit: int = 0) -> None:
        self.db = db
        self.storage_limit = storage_limit  # bytes a workspace may store (0: no limit)

    def lookup(
        self, workspace_id: str, mutation_id: str
    ) -> tuple[MutationRecord | None, RetrievalRecord | None]:
        """The mutation under a key and its retrieval receipt, read in one transaction."""
        with self.db.read() as conn:
            return self._lookup(conn, workspace_id, mutation_id)

    def lookup_or_use(
        self, workspace_id: str, mutation_id: str
    ) -> tuple[MutationRecord | None, RetrievalRecord | None, StorageUse | None]:
        """`lookup`, and for a key not claimed yet what the workspace stores against its
        limit (one row: store/usage.py), in the same read transaction: what a claim
        checks first, without a transaction of its own."""
        with self.db.read() as conn:
            mutation, retrieval = self._lookup(conn, workspace_id, mutation_id)
            if mutation is not None:
                return mutation, retrieval, None
            use = StorageUse(workspace_id, used(conn, workspace_id), self.storage_limit)
        return None, None, use

    def _lookup(
        self, conn: Connection, workspace_id: str, mutation_id: str
    ) -> tuple[MutationRecord | None, RetrievalRecord | None]:
        mutation = read_mutation(conn, workspace_id, mutation_id)
        if mutation is None:
            return None, None
        key = {"workspace_id": workspace_id, "mutation_id": mutation_id}
        retrieval = conn.execute(_RETRIEVAL_UNDER_KEY, key).first()
        return mutation, from_row(RetrievalRecord, retrieval) if retrieval else None

    def claim_retrieval(
        self,
        key: NewMutation,
        retrieval_id: str,
        kind: str,
        url: str,
        language: str | None,
        valid_until: datetime,
        source: str = "url",
        lease: tuple[str, float] | None = None,
    ) -> RetrievalRecord | None:
        """Insert the mutation and its receipt together: the receipt as stored, or None when
        the key exists.

        Without `lease` the receipt is `pending`. With `lease` (owner, seconds) it is
        claimed `running` under that owner's lease, for an instance that starts the read at
        once: one write transaction where claim then acquire would take two.
        """
        record = RetrievalRecord(
            id=retrieval_id,
            workspace_id=key.workspace_id,
            mutation_id=key.mutation_id,
            kind=kind,
            url=url,
            language=language,
            state=State.PENDING if lease is None else State.RUNNING,
            created_at=key.created_at,
            settled_at=None,
            valid_until=valid_until,
            lease_owner=None if lease is None else lease[0],
            lease_expires_at=None,
            result=None,
            evidence_id=None,
            evidence_revision=None,
            source=source,
        )
        try:
            with self.db.write() as conn:
                conn.execute(_INSERT_MUTATION, mutation_values(key))
                if lease is None:
                    conn.execute(_INSERT_RETRIEVAL, row_values(record))
                    return record
                values = row_values(record)
                del values["lease_expires_at"]
                expires = conn.execute(
                    self.db.prepared(_insert_running), {**values, "lease": lease[1]}
                ).scalar_one()
        except IntegrityError:
            return None
        return replace(record, lease_expires_at=expires)

    def retrieval(self, workspace_id: str, mutation_id: str) -> RetrievalRecord | None:
        query = select(retrievals).where(keyed(retrievals, workspace_id, mutation_id))
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return from_row(RetrievalRecord, row) if row else None

    def retrieval_by_id(self, retrieval_id: str) -> RetrievalRecord | None:
        with self.db.read() as conn:
            row = conn.execute(select(retrievals).where(retrievals.c.id == retrieval_id)).first()
        return from_row(RetrievalRecord, row) if row else None

    def acquire(
        self, retrieval_id: str, owner: str, lease_seconds: float
    ) -> RetrievalRecord | None:
        """pending -> running under `owner`'s lease: the receipt as it now stands, or None
        when it expired or someone else won.

        The lease runs on the database clock (store/clock.py), never the caller's.
        """
        values = {"retrieval_id": retrieval_id, "owner": owner, "lease": lease_seconds}
        with self.db.write_one() as conn:
            row = conn.execute(self.db.prepared(_acquire), values).first()
        return from_row(RetrievalRecord, row) if row else None

    def renew(self, retrieval_id: str, owner: str, lease_seconds: float) -> bool:
        """Push `owner`'s lease `lease_seconds` past the database clock (running, or parked
        pending for an origin's turn); False once lost."""
        until = db_time(self.db, lease_seconds)
        return self._held(retrieval_id, owner, OPEN_STATES, lease_expires_at=until)

    def park(self, retrieval_id: str, owner: str, lease_seconds: float) -> bool:
        """running -> pending, still under `owner`'s (renewed) lease: the read waits for an
        origin's turn; `acquire` by the same owner runs it again. False once lost."""
        until = db_time(self.db, lease_seconds)
        return self._held(
            retrieval_id, owner, {State.RUNNING}, state=State.PENDING, lease_expires_at=until
        )

    def release(self, retrieval_id: str, owner: str) -> bool:
        """A read parked `pending` under `owner`'s lease is handed back (its instance is
        stopping): no lease, so any instance's pending sweep resumes it at once instead of
        after the lease runs out. False if it is no longer parked under `owner`."""
        return self._held(
            retrieval_id, owner, {State.PENDING}, lease_owner=None, lease_expires_at=None
        )

    def _held(
        self, retrieval_id: str, owner: str, states: frozenset[str] | set[str], **values: Any
    ) -> bool:
        """Write `values` on a receipt `owner` leases, while it is in one of `states`."""
        with self.db.write_one() as conn:
            result = conn.execute(
                update(retrievals)
                .where(
                    retrievals.c.id == retrieval_id,
                    retrievals.c.state.in_(states),
                    retrievals.c.lease_owner == owner,
                )
                .values(**values)
            )
        return result.rowcount == 1

    def settle(
        self,
        retrieval_id: str,
        owner: str | None,
        state: str,
        result: str | None,
        now: datetime,
        evidence_item: EvidenceWrite | None = None,
        outcome: tuple[str | None, str | None] = (None, None),
        cause: str | None = None,
    ) -> Settled | None:
        """Settle an open receipt (and record its evidence) in one transaction.

        `StorageFull` when the evidence would take its workspace past its storage limit:
        then nothing was kept, the receipt is still open, and the caller settles it anew
        without evidence. With an `owner`, only that lease holder's running receipt
        settles; with None, any open receipt does (cancellation by its creator). None
        when it was already settled.
        `outcome` is the result's (status, reason), kept in columns for filtering; `cause`
        which cause of that reason it was (the published result has no field for it).
        """
        values = {
            "retrieval_id": retrieval_id,
            "owner": owner,
            "new_state": state,
            "new_result": result,
            "settled_at": now,
            "status": outcome[0],
            "reason": outcome[1],
            "cause": cause,
        }
        with self.db.write() as conn:
            claimed = conn.execute(_SETTLE_OWNED if owner is not None else _SETTLE_OPEN, values)
            if claimed.rowcount != 1:
                return None
            if evidence_item is None:
                return Settled()
            evidence_id, revision = record_revision(
                self.db, conn, evidence_item, now, self.storage_limit
            )
            conn.execute(
                _SET_EVIDENCE,
                {"retrieval_id": retrieval_id, "evidence_id": evidence_id, "revision": revision},
            )
        return Settled(evidence_id, revision)

    def sweep(self, retrieval_id: str | None = None) -> SweepCounts:
        """Lease ran out -> unconfirmed; never started inside valid_until -> expired.

        Judged by the database clock, so an instance whose own clock runs ahead never
        judges another's live lease. With `retrieval_id`, only that receipt is judged.
        """
        now = db_time(self.db)
        only = [retrievals.c.id == retrieval_id] if retrieval_id else []
        with self.db.write() as conn:
            lost = conn.execute(
                update(retrievals)
                .where(
                    *only, retrievals.c.state == State.RUNNING, retrievals.c.lease_expires_at < now
                )
                .values(state=State.UNCONFIRMED, settled_at=now, lease_owner=None)
            )
            late = conn.execute(
                update(retrievals)
                .where(*only, retrievals.c.state == State.PENDING, retrievals.c.valid_until <= now)
                .values(state=State.EXPIRED, settled_at=now)
            )
        return SweepCounts(lost.rowcount, late.rowcount)

    def pending_ids(self, limit: int) -> list[str]:
        """Pending reads no instance holds (one parked for an origin's turn is leased)."""
        query = (
            select(retrievals.c.id)
            .where(
                retrievals.c.state == State.PENDING,
                retrievals.c.source == "url",
                _unleased(self.db),
            )
            .order_by(retrievals.c.created_at)
            .limit(limit)
        )
        with self.db.read() as conn:
            return list(conn.execute(query).scalars())
