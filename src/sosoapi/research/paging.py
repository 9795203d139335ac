"""Reading one page of a list for a call: its cursor and limit, and a clear bad-cursor error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio

from sosoapi.contract.errors import invalid_input
from sosoapi.contract.models import PageInput
from sosoapi.research.operation import Call
from sosoapi.store.cursors import BadCursor

T = TypeVar("T")
P = TypeVar("P", bound=PageInput)


async def read_page(
    call: Call[P], lister: Callable[..., tuple[list[T], str | None]], **filters: Any
) -> tuple[list[T], str | None]:
    """`lister(workspace_id, cursor=, limit=, **filters)` in a worker thread."""
    try:
        return await anyio.to_thread.run_sync(
            lambda: lister(
                call.workspace_id,
                cursor=call.input.cursor,
                limit=call.input.limit,
                **filters,
            )
        )
    except BadCursor as error:
        raise invalid_input(
            f"`cursor` was not issued by this server ({error}); pass the `next_cursor` of a "
            "previous page, or omit it for the first page.",
            "cursor",
        ) from None
