"""The document tool's bounds (contract/documents.py), apart from its models: settings read
them where a one-shot command must not load pydantic (`sosoapi --help` stays light)."""

from __future__ import annotations

PAGES_CEILING = 10_000  # the furthest SOSOAPI_DOCUMENT_MAX_PAGES may be raised
LABEL_MAX = 100
AUTHORS_MAX = 50
AUTHOR_MAX = 500
SUBJECT_MAX = 2_000
DATE_MAX = 40
