"""Waiting for a receipt to settle, read from the store itself: what a test waits on
instead of sleeping after it cancels a call."""

from __future__ import annotations

import time

import anyio
import sqlalchemy as sa

from sosoapi.config import Settings
from sosoapi.contract.vocabulary import OPEN_STATES
from sosoapi.store.tables import retrievals


def database_of(env: dict[str, str]) -> str:
    """The database `sosoapi` uses when run with `env`."""
    return Settings.from_env(env).database_url


async def settled_state(database_url: str, mutation_id: str, seconds: float = 60.0) -> str:
    """The state of `mutation_id`'s receipt in the store once it is no longer open."""
    engine = sa.create_engine(database_url, poolclass=sa.pool.NullPool)
    query = sa.select(retrievals.c.state).where(retrievals.c.mutation_id == mutation_id)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            with engine.connect() as conn:
                state = conn.execute(query).scalar_one_or_none()
            if state is not None and state not in OPEN_STATES:
                return str(state)
            await anyio.sleep(0.05)
    finally:
        engine.dispose()
    raise AssertionError(f"the receipt of {mutation_id} was still open after {seconds} s")
