"""A finished read: its contract result, and what the contract has no field for.

The contract's models are wire models only (what crosses a surface). A read knows two
things more, and they travel beside its result, never inside it: the whole text and cues
a bounded receipt was cut from (its evidence revision keeps them; docs/product.md, "Long
sources"), and which cause of its reason it was (contract/guidance.py `CAUSES`: the
receipt keeps it in a column of its own, and the surfaces word their advice from it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from sosoapi.contract.documents import AnyResult
from sosoapi.contract.models import Segment

R = TypeVar("R", bound=AnyResult, covariant=True)
T = TypeVar("T", bound=AnyResult)


@dataclass(frozen=True, slots=True)
class Finished(Generic[R]):
    """A read's result (`Draft.finish`, `DocumentDraft.finish`) as the settle stores it."""

    result: R
    whole_text: str  # the evidence's text: the result's own unless the receipt was cut
    whole_segments: list[Segment]  # the evidence's cues, likewise (a document has none)
    cause: str | None = None


AnyFinished = Finished[AnyResult]  # either tool's, as the receipt machinery carries it


def finished(
    result: T,
    cause: str | None = None,
    whole_text: str | None = None,
    whole_segments: list[Segment] | None = None,
) -> Finished[T]:
    """`result` naming `cause`, with the whole text and cues when its text or cues were cut
    from them (None: nothing was cut, the evidence keeps the result's own)."""
    return Finished(
        result,
        result.text if whole_text is None else whole_text,
        result.segments if whole_segments is None else whole_segments,
        cause,
    )
