"""The one vocabulary of a retrieval: reason codes, statuses and receipt states.

Every module that produces or compares one of these uses the members below, never a bare
string, so a misspelt reason fails on import or in `tests/contract/test_vocabulary.py`
instead of at run time. The members are `str`s, so they cross a surface as their values:

    Reason   why a result is not plainly `ready` (egress, extract and the readers make them)
    Status   the result's one status; `research/retrieval/draft.py` ranks reasons within statuses
    State    where a receipt is in its life: open (pending, running) or settled
    Cause    which of a reason's several causes it was (not in the published contract: it
             words the advice, the log and the `sosoapi/cause` result metadata)
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    UNSAFE_URL = "unsafe_url"
    UNSUPPORTED_SOURCE = "unsupported_source"
    UNSUPPORTED_MEDIA = "unsupported_media"
    UNSUPPORTED_CONTENT = "unsupported_content"
    ACCESS_DENIED = "access_denied"
    LOGIN_REQUIRED = "login_required"
    NO_TEXT = "no_text"
    METADATA_ONLY = "metadata_only"
    NO_CAPTIONS = "no_captions"
    INVALID_CAPTIONS = "invalid_captions"
    NOT_FOUND = "not_found"
    RATE_LIMITED = "rate_limited"
    RESPONSE_TOO_LARGE = "response_too_large"
    TEXT_LIMITED = "text_limited"
    NODES_LIMITED = "nodes_limited"
    CUES_LIMITED = "cues_limited"
    INVALID_CUES = "invalid_cues"
    LANGUAGE_MISMATCH = "language_mismatch"
    SOURCE_PARTIAL = "source_partial"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    EGRESS_UNAVAILABLE = "egress_unavailable"
    UNAVAILABLE = "unavailable"


class Cause(StrEnum):
    # unsafe_url
    CERTIFICATE_UNTRUSTED = "certificate_untrusted"
    CERTIFICATE_SELF_SIGNED = "certificate_self_signed"
    CERTIFICATE_NAME_MISMATCH = "certificate_name_mismatch"
    CERTIFICATE_EXPIRED = "certificate_expired"
    CERTIFICATE_INVALID = "certificate_invalid"
    PRIVATE_ADDRESS = "private_address"
    PORT_NOT_ALLOWED = "port_not_allowed"
    NOT_HTTPS = "not_https"
    MALFORMED_URL = "malformed_url"
    # unavailable
    ORIGIN_ERROR = "origin_error"
    ORIGIN_STATUS = "origin_status"
    CONNECTION_BROKEN = "connection_broken"
    TLS_HANDSHAKE = "tls_handshake"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    UNSUPPORTED_ENCODING = "unsupported_encoding"
    # unsupported_media
    PDF_DOCUMENT = "pdf_document"  # a PDF asked of the seed retrieve: the document tool reads it
    NOT_A_PDF = "not_a_pdf"  # anything else asked of the document tool
    # login_required
    PDF_ENCRYPTED = "pdf_encrypted"
    # no_text, source_partial: a PDF's pages without a text layer (scans)
    NO_TEXT_LAYER = "no_text_layer"
    PAGES_WITHOUT_TEXT = "pages_without_text"
    # unsupported_content
    PARSE_DEADLINE = "parse_deadline"
    PARSE_MEMORY = "parse_memory"
    # unavailable, after the read
    STORAGE_FULL = "storage_full"  # what was read would pass the workspace's storage limit


class Status(StrEnum):
    READY = "ready"
    PARTIAL = "partial"
    BLOCKED = "blocked"
    UNSUPPORTED = "unsupported"
    EMPTY = "empty"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    CANCELLED = "cancelled"


class State(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    UNCONFIRMED = "unconfirmed"
    EXPIRED = "expired"


OPEN_STATES = frozenset({State.PENDING, State.RUNNING})
SETTLED_STATES = frozenset(State) - OPEN_STATES

DEFAULT_RETRY_AFTER = 60  # seconds, when an origin says 429 without Retry-After
