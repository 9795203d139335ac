"""SQLAlchemy Core tables. Migrations in `migrations/` create exactly these."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

ID = 36  # canonical lower-case UUID text
# Revisions and counters hold the contract's whole integer range (up to 2^53 - 1); SQLite's
# INTEGER is 64-bit already and only `INTEGER PRIMARY KEY` autoincrements there.
WIDE = BigInteger().with_variant(Integer, "sqlite")


def _ts(name: str, nullable: bool = False) -> Column[datetime]:
    return Column(name, DateTime(timezone=True), nullable=nullable)


workspaces = Table(
    "workspaces",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("research_enabled", Boolean, nullable=False, default=True),
    Column("is_local", Boolean, nullable=False, default=False),
    _ts("created_at"),
)

users = Table(
    "users",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("name", String(200), nullable=False),
    _ts("created_at"),
)

memberships = Table(
    "memberships",
    metadata,
    Column("workspace_id", String(ID), ForeignKey("workspaces.id"), primary_key=True),
    Column("user_id", String(ID), ForeignKey("users.id"), primary_key=True),
    Column("role", String(16), nullable=False),
    _ts("created_at"),
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("user_id", String(ID), ForeignKey("users.id"), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("label", String(200), nullable=False, default=""),
    Column("scopes", Text, nullable=False),
    _ts("created_at"),
    _ts("expires_at", nullable=True),
    _ts("revoked_at", nullable=True),
    # personal | oauth_access | oauth_refresh; OAuth tokens name their client, resource, grant
    Column("kind", String(16), nullable=False, server_default="personal"),
    Column("client_id", String(64), nullable=True),
    Column("resource", Text, nullable=True),
    Column("grant_id", String(ID), nullable=True, index=True),
    # an OAuth token's approving personal token: the grant ends with it (migration 0012)
    Column("approved_by", String(ID), nullable=True, index=True),
    _ts("last_used_at", nullable=True),  # 0013: to the minute (Guard.authenticate)
)

mutations = Table(
    "mutations",
    metadata,
    Column("workspace_id", String(ID), ForeignKey("workspaces.id"), primary_key=True),
    Column("mutation_id", String(ID), primary_key=True),
    Column("tool", String(80), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("arguments", Text, nullable=False),
    Column("token_id", String(ID), nullable=True),
    Column("result", Text, nullable=True),
    _ts("created_at"),
)

retrievals = Table(
    "retrievals",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("workspace_id", String(ID), nullable=False),
    Column("mutation_id", String(ID), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("url", Text, nullable=False),
    Column("language", String(35), nullable=True),
    Column("state", String(16), nullable=False),
    _ts("created_at"),
    _ts("settled_at", nullable=True),
    _ts("valid_until"),
    Column("lease_owner", String(80), nullable=True),
    _ts("lease_expires_at", nullable=True),
    Column("result", Text, nullable=True),
    Column("evidence_id", String(ID), nullable=True),
    Column("evidence_revision", WIDE, nullable=True),
    UniqueConstraint("workspace_id", "mutation_id", name="uq_retrievals_key"),
    ForeignKeyConstraint(
        ["workspace_id", "mutation_id"], ["mutations.workspace_id", "mutations.mutation_id"]
    ),
    Index("ix_retrievals_state_lease", "state", "lease_expires_at"),
)

evidence = Table(
    "evidence",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("workspace_id", String(ID), ForeignKey("workspaces.id"), nullable=False),
    Column("identity", String(64), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("source_url", Text, nullable=True),
    Column("language", String(35), nullable=True),
    Column("latest_revision", WIDE, nullable=False),
    _ts("created_at"),
    _ts("updated_at"),
    UniqueConstraint("workspace_id", "identity", name="uq_evidence_identity"),
)

evidence_revisions = Table(
    "evidence_revisions",
    metadata,
    Column("evidence_id", String(ID), ForeignKey("evidence.id"), primary_key=True),
    Column("revision", WIDE, primary_key=True),
    Column("digest", String(64), nullable=False),
    Column("content", Text, nullable=False),
    _ts("created_at"),
    # The whole text and cues the receipt-bounded `content` was cut from (migration 0014;
    # NULL: `content` is whole, as for every revision written before it).
    Column("whole", Text, nullable=True),
)

retrievals.append_column(Column("source", String(16), nullable=False, server_default="url"))

projects = Table(
    "projects",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("workspace_id", String(ID), ForeignKey("workspaces.id"), nullable=False),
    Column("title", String(200), nullable=False),
    Column("revision", WIDE, nullable=False),
    _ts("created_at"),
    _ts("updated_at"),
    Index("ix_projects_workspace", "workspace_id", "created_at"),
)

project_sources = Table(
    "project_sources",
    metadata,
    Column("id", WIDE, primary_key=True, autoincrement=True),
    Column("project_id", String(ID), ForeignKey("projects.id"), nullable=False),
    Column("evidence_id", String(ID), ForeignKey("evidence.id"), nullable=True),
    Column("note", String(100), nullable=True),
    _ts("added_at"),
    Index("ix_project_sources_project", "project_id", "id"),
)

corpora = Table(
    "corpora",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("workspace_id", String(ID), ForeignKey("workspaces.id"), nullable=False),
    Column("project_id", String(ID), ForeignKey("projects.id"), nullable=False),
    Column("latest_revision", WIDE, nullable=False),
    _ts("created_at"),
    _ts("updated_at"),
    Index("ix_corpora_workspace", "workspace_id", "created_at"),
)

corpus_revisions = Table(
    "corpus_revisions",
    metadata,
    Column("corpus_id", String(ID), ForeignKey("corpora.id"), primary_key=True),
    Column("revision", WIDE, primary_key=True),
    Column("snapshot", Text, nullable=False),
    _ts("sealed_at"),
)

Index("ix_evidence_workspace", evidence.c.workspace_id, evidence.c.updated_at)

origin_pacing = Table(
    "origin_pacing",
    metadata,
    Column("origin", String(300), primary_key=True),
    Column("last_start", Float, nullable=False),  # epoch seconds, database clock
    Index("ix_origin_pacing_last_start", "last_start"),
)

# The search index (migration 0003): one row per passage of every evidence revision. The
# full-text part is dialect-specific and not in this metadata: on SQLite an FTS5 table per
# workspace (`search_repo.fts_table`) keyed by `id`, on PostgreSQL a `tsv` tsvector column
# with a GIN index (see `search_repo`).
evidence_passages = Table(
    "evidence_passages",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    # A foreign key on SQLite only: PostgreSQL's per-row check was dropped (migration 0019).
    Column("evidence_id", String(ID), ForeignKey("evidence.id"), nullable=False),
    Column("revision", WIDE, nullable=False),
    Column("part", String(16), nullable=False),
    Column("pos_start", Integer, nullable=False),
    Column("pos_end", Integer, nullable=False),
    Column("start_ms", BigInteger, nullable=True),
    Column("end_ms", BigInteger, nullable=True),
    Column("config", String(32), nullable=False),
    Index("ix_evidence_passages_revision", "evidence_id", "revision"),
)


oauth_clients = Table(
    "oauth_clients",
    metadata,
    Column("client_id", String(64), primary_key=True),
    Column("secret_hash", String(64), nullable=True),
    Column("client_name", String(200), nullable=False),
    Column("info", Text, nullable=False),  # the registration as JSON, without its secret
    _ts("created_at"),
    _ts("authorized_at", nullable=True),  # first completed sign-in; unused clients expire
    Index("ix_oauth_clients_created_at", "created_at"),
)

# One sign-in: the /authorize request (pending), the person's decision, the code, its use.
oauth_authorizations = Table(
    "oauth_authorizations",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("client_id", String(64), ForeignKey("oauth_clients.client_id"), nullable=False),
    Column("params", Text, nullable=False),
    Column("user_id", String(ID), ForeignKey("users.id"), nullable=True),
    Column("code_hash", String(64), nullable=True, unique=True),
    _ts("created_at"),
    _ts("expires_at"),
    _ts("decided_at", nullable=True),
    _ts("exchanged_at", nullable=True),
    Column("approver_token_id", String(ID), nullable=True),  # the personal token that approved
    Column("grant_id", String(ID), nullable=True),  # what the code's exchange issued
    Index("ix_oauth_authorizations_expires_at", "expires_at"),
)


retrievals.append_column(Column("status", String(16), nullable=True))
retrievals.append_column(Column("reason", String(32), nullable=True))
retrievals.append_column(Column("cause", String(40), nullable=True))  # 0013
for _name, _columns in (
    ("ix_retrievals_workspace_created", ("created_at", "id")),
    ("ix_retrievals_workspace_status", ("status", "created_at", "id")),
    ("ix_retrievals_workspace_reason", ("reason", "created_at", "id")),
    ("ix_retrievals_workspace_outcome", ("state", "status")),
):
    Index(_name, retrievals.c.workspace_id, *(retrievals.c[c] for c in _columns))

console_sessions = Table(
    "console_sessions",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("session_hash", String(64), nullable=False, unique=True),
    Column("token_id", String(ID), ForeignKey("tokens.id"), nullable=False),
    _ts("created_at"),
    _ts("expires_at"),
    _ts("revoked_at", nullable=True),
)

evidence_revisions.append_column(Column("citation", Text, nullable=True))  # migration 0015

# Captures (migration 0015): the HTTP exchanges (or uploaded file) each evidence revision
# was written from. Bodies live once per SHA-256 in `capture_blobs`, zlib-compressed.
capture_blobs = Table(
    "capture_blobs",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("size", WIDE, nullable=False),  # uncompressed bytes
    Column("codec", String(8), nullable=False),  # "zlib"
    Column("data", LargeBinary, nullable=False),  # bytea on PostgreSQL, BLOB on SQLite
)

captures = Table(
    "captures",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("evidence_id", String(ID), ForeignKey("evidence.id"), nullable=False),
    Column("revision", WIDE, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("role", String(16), nullable=False),  # response | redirect | upload
    Column("url", Text, nullable=False),
    _ts("retrieved_at"),
    Column("ip", String(45), nullable=True),
    Column("status", Integer, nullable=True),
    Column("meta", Text, nullable=False),  # JSON: request and response heads
    Column("body_sha256", String(64), ForeignKey("capture_blobs.sha256"), nullable=False),
    Index("ix_captures_revision", "evidence_id", "revision", "seq"),
    Index("ix_captures_blob", "body_sha256"),
)

# What each workspace stores, kept with every write that adds or removes stored bytes
# (migration 0017; store/usage.py): the storage limit is checked against it, never a sum.
workspaces.append_column(Column("stored_bytes", WIDE, nullable=False, server_default="0"))
