"""A workspace's storage limit, as the receipts keep it (docs/product.md, "Storage limit").

Two checks, both against the count the store keeps (`store/usage.py`):
- at the door, a call that would claim a new key in a workspace already at its limit is
  refused before anything is claimed or read (`busy`, the same refusal as a full queue:
  no receipt exists, so the caller retries with the same mutation_id once there is room);
- at the settle, a read whose evidence would pass the limit keeps nothing of it, and its
  receipt settles `unavailable` / `unavailable` with the cause `storage_full` (a receipt
  exists by then, so it answers as every receipt does: 200, with the advice).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.contract.vocabulary import Cause, Reason
from sosoapi.research.retrieval.draft import unread
from sosoapi.research.retrieval.finished import AnyFinished
from sosoapi.store.records import EvidenceWrite, Settled, StorageFull, StorageUse

log = logging.getLogger("sosoapi.receipts")
SETTING = "SOSOAPI_WORKSPACE_STORAGE_MAX_MB"


def megabytes(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"


def refuse_when_full(use: StorageUse) -> None:
    """Refuse a new write in a workspace with no room left: `busy`, naming the fix."""
    if not use.full:
        return
    log.info(
        "retrieval refused code=busy cause=storage_full workspace=%s used=%d limit=%d",
        use.workspace_id, use.used_bytes, use.limit_bytes,
    )  # fmt: skip
    raise ServiceError(
        ErrorCode.BUSY,
        f"Workspace {use.workspace_id} stores {megabytes(use.used_bytes)}, its storage "
        f"limit is {megabytes(use.limit_bytes)} ({SETTING}); nothing was claimed or read. "
        "Free space with `sosoapi purge --older-than DURATION` (old captures go) or raise "
        f"{SETTING}, then retry with the same mutation_id.",
        "workspace_id",
    )


def storage_full(kind: str, now: datetime) -> AnyFinished:
    """The result of a read whose evidence did not fit in its workspace's storage."""
    return unread(kind, Reason.UNAVAILABLE, now, Cause.STORAGE_FULL)


Settle = Callable[[AnyFinished, EvidenceWrite | None], Settled | None]


def within_limit(
    settle: Settle, read: AnyFinished, item: EvidenceWrite | None, now: datetime
) -> tuple[AnyFinished, Settled | None]:
    """Settle with `read` and its evidence; when the evidence would pass its workspace's
    storage limit (the store kept nothing of that try), settle `storage_full` without it."""
    try:
        return read, settle(read, item)
    except StorageFull as full:
        use = full.use
        log.warning(
            "retrieval not stored: workspace storage full workspace=%s used=%d limit=%d "
            "needed=%d",
            use.workspace_id, use.used_bytes, use.limit_bytes, full.needed,
        )  # fmt: skip
        refused = storage_full(read.result.kind, now)
        return refused, settle(refused, None)
