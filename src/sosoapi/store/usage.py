"""What each workspace stores, counted as it is written, against its storage limit.

`workspaces.stored_bytes` is kept in the transaction of every write that adds or removes
stored bytes, so reading a workspace's usage is one row, never a sum over its texts. What
counts is what the workspace makes the database keep: each evidence revision's stored
text (its receipt-bounded content, the whole text and cues, the citation fields: UTF-8
bytes) and each capture's body at its stored (compressed) size. A capture is charged
where it is written and given back where it is purged, even when another capture (in
this workspace or another) points at the same stored body: so the count never depends on
what another workspace stores (it cannot tell one workspace of another's pages), and two
writes racing on one body cannot make it drift. The search index and row overheads are
not counted (docs/operations.md, "Storage per workspace").
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import BigInteger, Connection, bindparam, select, update

from sosoapi.store.records import EvidenceWrite, StorageFull, StorageUse
from sosoapi.store.tables import workspaces


def revision_bytes(item: EvidenceWrite) -> int:
    """The bytes a new revision of `item` adds: its texts and its capture bodies."""
    texts = (item.content, item.whole, item.citation)
    text_bytes = sum(len(text.encode("utf-8")) for text in texts if text is not None)
    return text_bytes + sum(len(capture.packed) for capture in item.captures)


_CHARGE = (
    update(workspaces)
    .where(
        workspaces.c.id == bindparam("workspace_id"),
        (bindparam("limit", type_=BigInteger) == 0)
        | (
            workspaces.c.stored_bytes + bindparam("bytes", type_=BigInteger)
            <= bindparam("limit", type_=BigInteger)
        ),
    )
    .values(stored_bytes=workspaces.c.stored_bytes + bindparam("bytes"))
)
_GIVE_BACK = (
    update(workspaces)
    .where(workspaces.c.id == bindparam("workspace_id"))
    .values(stored_bytes=workspaces.c.stored_bytes - bindparam("bytes"))
)
_USED = select(workspaces.c.stored_bytes).where(workspaces.c.id == bindparam("workspace_id"))


def charge(conn: Connection, workspace_id: str, size: int, limit: int) -> None:
    """Count `size` more bytes for the workspace inside the caller's transaction, or raise
    `StorageFull` (the caller's transaction then keeps nothing) when that passes `limit`.

    One conditional UPDATE: the check and the count are atomic on both stores (PostgreSQL
    holds the workspace's row until commit, so racing writes are counted one after another).
    """
    values = {"workspace_id": workspace_id, "bytes": size, "limit": limit}
    if conn.execute(_CHARGE, values).rowcount != 1:
        raise StorageFull(StorageUse(workspace_id, used(conn, workspace_id), limit), size)


def give_back(conn: Connection, freed: Mapping[str, int]) -> None:
    """Count the bytes a purge removed, per workspace, inside its transaction."""
    for workspace_id, size in sorted(freed.items()):
        if size:
            conn.execute(_GIVE_BACK, {"workspace_id": workspace_id, "bytes": size})


def used(conn: Connection, workspace_id: str) -> int:
    return int(conn.execute(_USED, {"workspace_id": workspace_id}).scalar_one_or_none() or 0)
