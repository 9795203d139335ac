"""The idempotency rules every write tool shares (SPEC section 4, "Receipt and idempotency").

One key space per workspace: a mutation_id used by one tool is a conflict for any other,
and the same key with other arguments is a conflict naming the fields that differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import anyio
from sqlalchemy import Connection

from sosoapi.contract.errors import ServiceError, conflict
from sosoapi.contract.models import Wire
from sosoapi.research.evidence import canonical_json, sha256_hex
from sosoapi.store.receipts import NewMutation
from sosoapi.store.records import MutationRecord
from sosoapi.store.store import Store

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
    store: Store,
    key: NewMutation,
    model: type[W],
    change: Callable[[Connection], W],
) -> W:
    """Run `change` once under `key`; a replay returns the stored result of that mutation."""

    def run() -> W:
        record, created = store.mutations.run_once(key, lambda conn: change(conn).model_dump_json())
        if not created:
            ensure_same(record, key)
        if record.result is None:
            raise ServiceError("unavailable", "The stored mutation has no result; retry shortly.")
        return model.model_validate_json(record.result)

    return await anyio.to_thread.run_sync(run)
