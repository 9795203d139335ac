"""Plain records and typed refusals of the store: what the layers above it may see.

With the page-cursor codec (`store/cursors.py`), the only part of `store` that `research`
imports (`tests/test_layers.py`): repositories return these rows with their UTC zone
restored, and raise these exceptions.
"""

from __future__ import annotations

import operator
from dataclasses import InitVar, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, overload

from sosoapi.contract.errors import SosoapiError
from sosoapi.store.bodies import PackedBody as PackedBody  # what research may see of a body


@overload
def utc(value: datetime) -> datetime: ...
@overload
def utc(value: None) -> None: ...
@overload
def utc(value: datetime | None) -> datetime | None: ...
def utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class WorkspaceRecord:
    id: str
    name: str
    research_enabled: bool
    is_local: bool
    created_at: datetime
    stored_bytes: int = 0  # evidence text and capture bodies it keeps (store/usage.py)


@dataclass(frozen=True, slots=True)
class TokenRecord:
    id: str
    user_id: str
    label: str
    scopes: frozenset[str]
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    kind: str = "personal"  # personal | oauth_access | oauth_refresh
    client_id: str | None = None
    resource: str | None = None
    grant_id: str | None = None
    # An OAuth token's approving personal token, and that token's state when this was read
    # (None: not an OAuth token, or approved before migration 0012 recorded it).
    approved_by: str | None = None
    approver: ApproverState | None = None
    last_used_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ApproverState:
    """The approving personal token as read with the OAuth token (`found` False: deleted)."""

    found: bool
    expires_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class MutationRecord:
    workspace_id: str
    mutation_id: str
    tool: str
    fingerprint: str
    arguments: str
    token_id: str | None
    result: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RetrievalRecord:
    id: str
    workspace_id: str
    mutation_id: str
    kind: str
    url: str
    language: str | None
    state: str
    created_at: datetime
    settled_at: datetime | None
    valid_until: datetime
    lease_owner: str | None
    lease_expires_at: datetime | None
    result: str | None
    evidence_id: str | None
    evidence_revision: int | None
    source: str
    cause: str | None = None  # which cause of the result's reason (contract/guidance.py)


def from_row(cls: type, row: Any) -> Any:
    """Build a record from a row, restoring UTC on every datetime column."""
    values = {k: (utc(v) if isinstance(v, datetime) else v) for k, v in row._mapping.items()}
    return cls(**{k: values[k] for k in cls.__slots__})  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class CorpusRow:
    id: str
    workspace_id: str
    project_id: str
    latest_revision: int
    revision: int
    snapshot: str
    sealed_at: datetime
    created_at: datetime


@dataclass(frozen=True, slots=True)
class SourceRow:
    evidence_id: str | None
    note: str | None
    added_at: datetime


@dataclass(frozen=True, slots=True)
class ProjectRow:
    id: str
    workspace_id: str
    title: str
    revision: int
    created_at: datetime
    updated_at: datetime
    sources: tuple[SourceRow, ...] = ()
    source_count: int = 0


class KeyTaken(SosoapiError):
    """A transaction lost a race on a unique key; nothing it wrote was kept."""


@dataclass(frozen=True, slots=True)
class StorageUse:
    """What a workspace stores (`store/usage.py` counts it) against its limit (0: none)."""

    workspace_id: str
    used_bytes: int
    limit_bytes: int

    @property
    def full(self) -> bool:
        """No room left at all: a new write is refused before anything is read."""
        return 0 < self.limit_bytes <= self.used_bytes


class StorageFull(SosoapiError):
    """Storing a revision would take its workspace past its storage limit; nothing of the
    transaction was kept."""

    def __init__(self, use: StorageUse, needed: int) -> None:
        super().__init__(
            f"workspace {use.workspace_id} stores {use.used_bytes} of {use.limit_bytes} "
            f"bytes; this revision needs {needed} more"
        )
        self.use = use
        self.needed = needed


@dataclass(frozen=True, slots=True)
class NewMutation:
    workspace_id: str
    mutation_id: str
    tool: str
    fingerprint: str
    arguments: str
    token_id: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class SnippetSpan:
    start: int
    end: int
    start_ms: int | None
    end_ms: int | None


@dataclass(frozen=True, slots=True)
class SearchHit:
    evidence_id: str
    revision: int
    kind: str
    source_url: str | None
    score: float
    content: str
    snippets: tuple[SnippetSpan, ...]


@dataclass(frozen=True, slots=True)
class EvidenceUses:
    """Where one evidence is used: (project id, title) of each project that references it,
    and (corpus id, corpus revision, evidence revision pinned, project title) of each
    sealed corpus revision that pins it."""

    projects: tuple[tuple[str, str], ...]
    corpora: tuple[tuple[str, int, int, str], ...]


@dataclass(frozen=True, slots=True)
class RetrievalFilter:
    """Each field None means "any"."""

    state: str | None = None
    status: str | None = None
    reason: str | None = None
    url_contains: str | None = None  # the asked URL holds this text (case as typed)


@dataclass(frozen=True, slots=True)
class WorkspaceCounts:
    retrievals_by_state: dict[str, int]
    retrievals_by_status: dict[str, int]
    evidence: int
    projects: int
    corpora: int


@dataclass(frozen=True, slots=True)
class SessionRecord:
    id: str
    token_id: str
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None


class StoreUnavailable(SosoapiError):
    """The database cannot serve this transaction now; nothing of it was committed."""

    def __init__(self, cause: str) -> None:
        super().__init__(f"database unavailable ({cause})")
        self.cause = cause


@dataclass(frozen=True, slots=True)
class PassageRecord:
    """One searchable passage of a revision: where it stands in the revision's text (title
    and description passages stand at 0:0), a caption cue's times, and its `body` already
    in the search form both stores tokenize alike (`extract.passages.searchable`)."""

    part: str
    start: int
    end: int
    start_ms: int | None
    end_ms: int | None
    body: str

    def __reduce__(self) -> tuple[type[PassageRecord], tuple[Any, ...]]:
        """Pickled as its constructor's arguments: a page's passages come back from its
        parse worker (research/offload.py), and a frozen dataclass's default state costs
        twice as much to load on the server (0.19 against 0.10 ms for a page's 33)."""
        return PassageRecord, _passage_fields(self)


_passage_fields = operator.attrgetter(*(f.name for f in fields(PassageRecord)))


@dataclass(frozen=True, slots=True)
class CaptureWrite:
    """One exchange a revision was written from, as it arrived: `role` is `response`
    (the answer read), `redirect` (a hop before it) or `upload` (a file's bytes); `meta`
    is JSON with the request and response heads; `body` the raw bytes, before decoding."""

    role: str
    url: str
    retrieved_at: datetime
    ip: str | None
    status: int | None
    meta: str
    body: bytes
    # The body's digest and stored form, made when the capture is built (by the use case,
    # before the write transaction begins), never while the store holds its write lock.
    body_sha256: str = field(init=False)
    packed: bytes = field(init=False)
    # `body`'s PackedBody when it was made already (a page's, in its parse worker's trip)
    prepacked: InitVar[PackedBody | None] = None

    def __post_init__(self, prepacked: PackedBody | None) -> None:
        made = prepacked or PackedBody.of(self.body)
        object.__setattr__(self, "body_sha256", made.sha256)
        object.__setattr__(self, "packed", made.packed)


@dataclass(frozen=True, slots=True)
class CaptureRecord:
    """A stored capture with its body restored; `body_sha256` is the body's digest."""

    evidence_id: str
    revision: int
    seq: int
    role: str
    url: str
    retrieved_at: datetime
    ip: str | None
    status: int | None
    meta: str
    body_sha256: str
    body: bytes


@dataclass(frozen=True, slots=True)
class EvidenceWrite:
    """What a settled retrieval asks to be recorded as evidence: the content as stored
    (canonical JSON) and its passages, cut by the use case before the write begins."""

    workspace_id: str
    identity: str
    kind: str
    source_url: str | None
    language: str | None
    digest: str
    content: str
    passages: tuple[PassageRecord, ...] = ()
    whole: str | None = None  # canonical JSON of the whole text and cues, when cut
    captures: tuple[CaptureWrite, ...] = ()
    citation: str | None = None  # JSON: the citation fields the page declared


@dataclass(frozen=True, slots=True)
class EvidenceRevisionRecord:
    evidence_id: str
    workspace_id: str
    kind: str
    revision: int
    latest_revision: int
    digest: str
    content: str
    created_at: datetime
    whole: str | None = None  # the whole text and cues `content` was cut from, if it was
    citation: str | None = None


@dataclass(frozen=True, slots=True)
class EvidenceListRow:
    id: str
    kind: str
    source_url: str | None
    language: str | None
    latest_revision: int
    content: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Settled:
    """A receipt this call settled, and the evidence revision it recorded (if any)."""

    evidence_id: str | None = None
    evidence_revision: int | None = None


@dataclass(frozen=True, slots=True)
class SweepCounts:
    unconfirmed: int
    expired: int


@dataclass(frozen=True, slots=True)
class ClientRecord:
    client_id: str
    secret_hash: str | None
    client_name: str
    info: str


@dataclass(frozen=True, slots=True)
class AuthorizationRecord:
    client_id: str
    params: str
    user_id: str | None
    expires_at: datetime
    decided_at: datetime | None
    exchanged_at: datetime | None
    approver_token_id: str | None = None
    grant_id: str | None = None


@dataclass(frozen=True, slots=True)
class GrantToken:
    """One OAuth token row to insert: its hash and what it grants."""

    kind: str
    token_hash: str
    expires_at: datetime
