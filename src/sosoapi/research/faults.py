"""How a call answers when the store is unavailable: one wording for every surface."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.store.records import StoreUnavailable

STORE_UNAVAILABLE = (
    "The database is unavailable right now (restarting, unreachable or out of space), so "
    "this call produced no result. Retry shortly with the same arguments and the same "
    "mutation_id: a write recorded before the fault returns its one receipt, never a second."
)
RETRY_AFTER_SECONDS = 5  # HTTP's Retry-After on the 503: an outage, or a pool that stayed busy


def store_unavailable() -> ServiceError:
    return ServiceError(
        ErrorCode.UNAVAILABLE, STORE_UNAVAILABLE, retry_after_seconds=RETRY_AFTER_SECONDS
    )


@contextmanager
def answering_store_faults() -> Iterator[None]:
    """Turn the store's `StoreUnavailable` into the service's `unavailable` error."""
    try:
        yield
    except StoreUnavailable:
        raise store_unavailable() from None
