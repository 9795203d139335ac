"""What an operation receives and returns, shared by every use case."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sosoapi.auth.permission import Access, Action
from sosoapi.auth.tokens import Principal
from sosoapi.contract.models import Wire
from sosoapi.extract.language import LanguageMatch, match_language
from sosoapi.progress import Listener
from sosoapi.research.retrieval.contract_receipt import Receipt

I = TypeVar("I", bound=Wire)  # noqa: E741
W = TypeVar("W", bound=Wire)


@dataclass(frozen=True, slots=True)
class Call(Generic[I]):
    """One authorised call as an operation sees it: the input parsed once, at the door.

    `arguments` is the validated JSON as sent; only the write-once fingerprint reads it,
    so a key's stored fingerprint stays what earlier versions wrote.
    """

    principal: Principal
    access: Access | None
    input: I
    arguments: dict[str, Any]
    cancel_requested: Callable[[], bool]
    progress: Listener | None = None  # hears a retrieval's steps (a surface's progress)

    @property
    def workspace_id(self) -> str:
        assert self.access is not None, "this operation is not workspace-scoped"
        return self.access.workspace.id

    @property
    def token_id(self) -> str:
        return self.principal.token_id


@dataclass(frozen=True, slots=True)
class Outcome:
    """An operation's contract output, plus what the seed schemas have no place for: the
    corpus revision of a snapshot, which declared tag an asked language matched, and which
    cause of a receipt's reason it was."""

    output: Wire
    corpus_revision: int | None = None

    def of(self, model: type[W]) -> W:
        """The output as the tool's own model (a console page knows which tool it called)."""
        if not isinstance(self.output, model):
            raise TypeError(f"{type(self.output).__name__} is not {model.__name__}")
        return self.output

    language_match: LanguageMatch | None = None
    cause: str | None = None


def retrieval_outcome(receipt: Receipt, asked: str | None) -> Outcome:
    """A receipt's outcome, naming how `asked` matched the result's declared language (the
    receipt's `language` is the declared tag; the rule that matched it has no field)."""
    result = receipt.output.retrieval.result
    declared = result.provenance.language if result else None
    found = match_language(asked, declared) if asked and declared else None
    return Outcome(receipt.output, language_match=found, cause=receipt.cause)


Handler = Callable[[Call[Any]], Awaitable[Outcome]]


@dataclass(frozen=True, slots=True)
class Operation:
    """A tool's use case and its input model; `action` None means authentication alone."""

    tool: str
    action: Action | None
    input_model: type[Wire]
    handler: Handler
