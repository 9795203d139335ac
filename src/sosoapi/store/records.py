"""Plain records and typed refusals of the store: what the layers above it may see.

The one module of `store` that `research` imports (`tests/test_layers.py`): repositories
return these rows with their UTC zone restored, and raise these exceptions.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, overload

import zstandard

from sosoapi.contract.errors import SosoapiError


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "body_sha256", hashlib.sha256(self.body).hexdigest())
        object.__setattr__(self, "packed", pack_body(self.body))


# How capture bodies are stored: zstandard at level 3 (on 60 dev-set pages, 0.28 ms a page
# and 0.197 of the size, where zlib at level 6 took 1.51 ms for 0.194); blobs written as
# zlib by the first version still read.
BODY_CODEC = "zstd"
_PACKER = zstandard.ZstdCompressor(level=3)


def pack_body(body: bytes) -> bytes:
    return _PACKER.compress(body)


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


# --- page cursors ------------------------------------------------------------------------
# One codec for every list and for search, every field checked on the way in. A cursor is
# base64url of a short JSON array that starts with its kind: a keyset position
# (`["k", created_at, row_id]`, lists newest first) or a search offset (`["s", offset,
# fingerprint]`). Cursors are not signed; they carry nothing secret, and the reader
# validates each field instead (type, range, shape), so a forged cursor is a `BadCursor`
# (a 400 naming `cursor` on every surface) and never reaches SQL as something it cannot
# hold: a 2**63 offset, a boolean, a NUL, a date the database cannot store.


class BadCursor(SosoapiError, ValueError):
    """The cursor was not issued by this server (the message says which part is wrong)."""


MAX_CURSOR_CHARS = 512  # the contract's bound on `cursor`
MAX_SEARCH_OFFSET = 10_000  # search serves the first 10,000 results of a query
_ROW_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
_FINGERPRINT = re.compile(r"[0-9a-f]{16}")
_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
_LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def _encode(fields: list[Any]) -> str:
    raw = json.dumps(fields, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str, kind: str, size: int) -> list[Any]:
    if len(cursor) > MAX_CURSOR_CHARS or not re.fullmatch(r"[A-Za-z0-9_-]+", cursor):
        raise BadCursor("it is not base64url text of at most 512 characters")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        fields = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, RecursionError):
        raise BadCursor("it does not decode") from None
    if not isinstance(fields, list) or len(fields) != size or fields[0] != kind:
        raise BadCursor("it is not a cursor of this list")
    return fields


def encode_keyset(created_at: datetime, row_id: str) -> str:
    """The position after the row (created_at, row_id) of a newest-first list."""
    return _encode(["k", created_at.astimezone(UTC).isoformat(), row_id])


def decode_keyset(cursor: str) -> tuple[datetime, str]:
    """(created_at in UTC, row_id) of a keyset cursor, each checked."""
    _, created, row_id = _decode(cursor, "k", 3)
    if not isinstance(row_id, str) or not _ROW_ID.fullmatch(row_id):
        raise BadCursor("its row id is not an id this server issues")
    if not isinstance(created, str) or len(created) > 40:
        raise BadCursor("its time is not an ISO 8601 time")
    try:
        at = datetime.fromisoformat(created)
        if at.tzinfo is None:
            raise ValueError("no time zone")
        at = at.astimezone(UTC)
    except (ValueError, OverflowError):
        raise BadCursor("its time is not an ISO 8601 time with a time zone") from None
    if not _EARLIEST <= at <= _LATEST:
        raise BadCursor("its time is outside the times this server stores")
    return at, row_id


def encode_search(offset: int, fingerprint: str) -> str:
    """The position `offset` results into the search whose scope hashes to `fingerprint`."""
    return _encode(["s", offset, fingerprint])


def decode_search(cursor: str, fingerprint: str) -> int:
    """The offset of a search cursor issued for this very query and scope."""
    _, offset, issued_for = _decode(cursor, "s", 3)
    if not isinstance(issued_for, str) or not _FINGERPRINT.fullmatch(issued_for):
        raise BadCursor("it is not a search cursor")
    if issued_for != fingerprint:
        raise BadCursor("it was issued for another query or scope")
    if type(offset) is not int or not 0 <= offset <= MAX_SEARCH_OFFSET:
        raise BadCursor(f"its offset is not a whole number from 0 to {MAX_SEARCH_OFFSET}")
    return offset
