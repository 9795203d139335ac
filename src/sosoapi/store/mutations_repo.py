"""Mutation keys: one (workspace_id, mutation_id) key space for every write tool.

The primary key of `mutations` decides races: of two transactions inserting the same key
one commits, the other raises `KeyTaken` (from `Store.transaction`) and re-reads the key.
The write-once rule itself (replay, conflict) lives in `research/mutations.py`.
"""

from __future__ import annotations

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Connection,
    Table,
    and_,
    bindparam,
    select,
    update,
)

from sosoapi.store.database import Database
from sosoapi.store.records import MutationRecord, NewMutation, from_row
from sosoapi.store.tables import mutations


def keyed(
    table: Table, workspace_id: str | BindParameter[str], mutation_id: str | BindParameter[str]
) -> ColumnElement[bool]:
    """The row of `table` under one (workspace_id, mutation_id) key."""
    return and_(table.c.workspace_id == workspace_id, table.c.mutation_id == mutation_id)


def mutation_values(key: NewMutation) -> dict[str, object]:
    return {
        "workspace_id": key.workspace_id,
        "mutation_id": key.mutation_id,
        "tool": key.tool,
        "fingerprint": key.fingerprint,
        "arguments": key.arguments,
        "token_id": key.token_id,
        "result": None,
        "created_at": key.created_at,
    }


def bound_key(table: Table) -> ColumnElement[bool]:
    """`keyed` with the key bound at execution: `workspace_id` and `mutation_id`."""
    return keyed(table, bindparam("workspace_id"), bindparam("mutation_id"))


_MUTATION_UNDER_KEY = select(mutations).where(bound_key(mutations))


def read_mutation(conn: Connection, workspace_id: str, mutation_id: str) -> MutationRecord | None:
    key = {"workspace_id": workspace_id, "mutation_id": mutation_id}
    row = conn.execute(_MUTATION_UNDER_KEY, key).first()
    return from_row(MutationRecord, row) if row else None


class MutationRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, workspace_id: str, mutation_id: str) -> MutationRecord | None:
        with self.db.read() as conn:
            return read_mutation(conn, workspace_id, mutation_id)


class MutationsInTx:
    """Mutation writes inside one transaction: the claim and, later, its stored result."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def claim(self, key: NewMutation) -> None:
        self.conn.execute(mutations.insert().values(**mutation_values(key)))

    def store_result(self, key: NewMutation, result: str) -> None:
        self.conn.execute(
            update(mutations)
            .where(keyed(mutations, key.workspace_id, key.mutation_id))
            .values(result=result)
        )
