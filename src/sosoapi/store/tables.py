"""SQLAlchemy Core tables. Migrations in `migrations/` create exactly these."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

ID = 36  # canonical lower-case UUID text


def _ts(name: str, nullable: bool = False) -> Column:
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
    Column("evidence_revision", Integer, nullable=True),
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
    Column("latest_revision", Integer, nullable=False),
    _ts("created_at"),
    _ts("updated_at"),
    UniqueConstraint("workspace_id", "identity", name="uq_evidence_identity"),
)

evidence_revisions = Table(
    "evidence_revisions",
    metadata,
    Column("evidence_id", String(ID), ForeignKey("evidence.id"), primary_key=True),
    Column("revision", Integer, primary_key=True),
    Column("digest", String(64), nullable=False),
    Column("content", Text, nullable=False),
    _ts("created_at"),
)

retrievals.append_column(Column("source", String(16), nullable=False, server_default="url"))

projects = Table(
    "projects",
    metadata,
    Column("id", String(ID), primary_key=True),
    Column("workspace_id", String(ID), ForeignKey("workspaces.id"), nullable=False),
    Column("title", String(200), nullable=False),
    Column("revision", Integer, nullable=False),
    _ts("created_at"),
    _ts("updated_at"),
    Index("ix_projects_workspace", "workspace_id", "created_at"),
)

project_sources = Table(
    "project_sources",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
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
    Column("latest_revision", Integer, nullable=False),
    _ts("created_at"),
    _ts("updated_at"),
    Index("ix_corpora_workspace", "workspace_id", "created_at"),
)

corpus_revisions = Table(
    "corpus_revisions",
    metadata,
    Column("corpus_id", String(ID), ForeignKey("corpora.id"), primary_key=True),
    Column("revision", Integer, primary_key=True),
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
