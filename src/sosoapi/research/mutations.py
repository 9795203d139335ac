"""The idempotency rules every write tool shares (docs/product.md, "Receipts and idempotency").

One key space per workspace: a mutation_id used by one tool is a conflict for any other,
and the same key with other arguments is a conflict naming the fields that differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import anyio

from sosoapi.contract.errors import ServiceError, conflict
from sosoapi.contract.models import Wire
from sosoapi.research.evidence.identity import canonical_json, sha256_hex
from sosoapi.research.ports import Transaction, UnitOfWork
from sosoapi.store.mutations_repo import KeyTaken, NewMutation
from sosoapi.store.records import MutationRecord

KEY_FIELDS = ("workspace_id", "mutation_id")
W = TypeVar("W", bound=Wire)


def key_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments that define what a mutation does (its key excluded)."""
    return {k: v for k, v in sorted(arguments.items()) if k not in KEY_FIELDS}


def fingerprint(tool: str, arguments: dict[str, Any]) -> str:
    return sha256_hex(canonical_json({"tool": tool, "arguments": arguments}))


def new_mutation(
    tool: str, arguments: dict[str, Any], token_id: str | None, now: datetime
) -> NewMutation:
    meaning = key_arguments(arguments)
    return NewMutation(
        workspace_id=arguments["workspace_id"].lower(),
        mutation_id=arguments["mutation_id"].lower(),
        tool=tool,
        fingerprint=fingerprint(tool, meaning),
        arguments=canonical_json(meaning),
        token_id=token_id,
        created_at=now,
    )


def ensure_same(existing: MutationRecord, key: NewMutation) -> None:
    """Raise `conflict` unless `existing` is the same tool with the same arguments."""
    if existing.tool != key.tool:
        raise conflict(
            f"mutation_id {key.mutation_id} was already used by `{existing.tool}` in this "
            "workspace; use a new mutation_id (a fresh UUID) for this call.",
            "mutation_id",
        )
    if existing.fingerprint == key.fingerprint:
        return
    stored, given = json.loads(existing.arguments), json.loads(key.arguments)
    fields = sorted(
        name for name in set(stored) | set(given) if stored.get(name) != given.get(name)
    )
    detail = ", ".join(f"`{f}` was {stored.get(f)!r}, now {given.get(f)!r}" for f in fields)
    raise conflict(
        f"mutation_id {key.mutation_id} was already used with other arguments ({detail}); "
        "replay with the original arguments or use a new mutation_id.",
        fields[0] if fields else "mutation_id",
    )


async def write_once(
    uow: UnitOfWork, key: NewMutation, model: type[W], change: Callable[[Transaction], W]
) -> W:
    """Run `change` once under `key`, with its stored result, in one transaction.

    A replay (or the loser of a race for the key) returns the stored result of the first
    call instead; the same key with another tool or other arguments is a `conflict`.
    """

    def run() -> W:
        existing = uow.mutations.get(key.workspace_id, key.mutation_id)
        if existing is None:
            try:
                with uow.transaction() as tx:
                    tx.mutations.claim(key)
                    result = change(tx).model_dump_json()
                    tx.mutations.store_result(key, result)
                return model.model_validate_json(result)
            except KeyTaken:
                existing = uow.mutations.get(key.workspace_id, key.mutation_id)
                if existing is None:
                    raise
        ensure_same(existing, key)
        if existing.result is None:
            raise ServiceError("unavailable", "The stored mutation has no result; retry shortly.")
        return model.model_validate_json(existing.result)

    return await anyio.to_thread.run_sync(run)
