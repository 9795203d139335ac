"""A retrieval's claim checks its key and its workspace's storage in one read transaction,
then writes the receipt in one more: each transaction costs the server a connection's
checkout, BEGIN and COMMIT (round trips on PostgreSQL). Both stores, a real read."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import event

from sosoapi.application import Application
from tests.support.calls import args, call
from tests.support.origin import HTTPSOrigin
from tests.support.pages import real_pages


async def test_a_new_key_is_checked_in_one_read_and_claimed_in_one_write(
    monkeypatch: pytest.MonkeyPatch,
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
) -> None:
    claiming: set[int] = set()  # the threads running a claim now
    begun: list[str] = []
    receipts = application.research.receipts
    claim = receipts._claim_or_load

    def watched(*a: Any, **kw: Any) -> Any:
        claiming.add(threading.get_ident())
        try:
            return claim(*a, **kw)
        finally:
            claiming.discard(threading.get_ident())

    def on_begin(conn: Any) -> None:
        if threading.get_ident() in claiming:
            begun.append(conn.dialect.name)

    monkeypatch.setattr(receipts, "_claim_or_load", watched)
    engine = application.store.db.engine
    event.listen(engine, "begin", on_begin)
    try:
        workspace_id, token = owner
        page = real_pages()[0]
        done = await call(application, token, args(workspace_id, origin.url(f"/{page.name}")))
        again = await call(application, token, args(workspace_id, origin.url(f"/{page.name}")))
    finally:
        event.remove(engine, "begin", on_begin)
    assert done["result"]["status"] == "ready", done
    assert again["result"]["status"] == "ready", again
    assert len(begun) == 2 + 2  # each key: one read (key, storage), one write (the claim)
