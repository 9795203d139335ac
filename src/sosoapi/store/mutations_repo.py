"""Write-once mutations: a change and its stored result, recorded in one transaction.

Every write tool but retrieve runs its change through `run_once`: the (workspace_id,
mutation_id) primary key makes a second call with the same key return the stored result
of the first, never run the change again.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, update
from sqlalchemy.exc import IntegrityError

from sosoapi.store.database import Database
from sosoapi.store.receipts import NewMutation, ReceiptRepository, keyed, mutation_values
from sosoapi.store.records import MutationRecord
from sosoapi.store.tables import mutations

Change = Callable[[Connection], str]


class MutationRepository:
    def __init__(self, db: Database, receipts: ReceiptRepository) -> None:
        self.db = db
        self.receipts = receipts

    def run_once(self, key: NewMutation, change: Change) -> tuple[MutationRecord, bool]:
        """(the mutation, True) after running `change`; (the stored mutation, False) on replay.

        `change` returns the result JSON; if it raises, nothing is written.
        """
        existing = self.receipts.mutation(key.workspace_id, key.mutation_id)
        if existing is not None:
            return existing, False
        try:
            with self.db.write() as conn:
                conn.execute(mutations.insert().values(**mutation_values(key)))
                result = change(conn)
                conn.execute(
                    update(mutations)
                    .where(keyed(mutations, key.workspace_id, key.mutation_id))
                    .values(result=result)
                )
        except IntegrityError:
            existing = self.receipts.mutation(key.workspace_id, key.mutation_id)
            if existing is None:
                raise
            return existing, False
        record = self.receipts.mutation(key.workspace_id, key.mutation_id)
        assert record is not None
        return record, True
