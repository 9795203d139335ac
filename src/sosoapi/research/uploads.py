"""Local files as evidence (stdio only): the same extraction and bounds as a retrieval.

A remote caller must never name a server path, so this use case is registered only on
the stdio surface; the file is read through the same `read_source` pipeline with a fetch
that answers for that one file and refuses anything else.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import anyio

from sosoapi.contract.errors import invalid_input
from sosoapi.contract.models import RetrieveResult
from sosoapi.contract.vocabulary import Reason
from sosoapi.egress.types import FetchOutcome
from sosoapi.research.reading import read_source

UPLOAD_URL = "upload:local-file"
MEDIA_BY_SUFFIX = {
    "url_text": {
        ".txt": "text/plain",
        ".html": "text/html",
        ".htm": "text/html",
        ".xhtml": "application/xhtml+xml",
    },
    "published_captions": {".vtt": "text/vtt", ".srt": "application/x-subrip"},
}


def media_type_of(path: Path, kind: str) -> str:
    media = MEDIA_BY_SUFFIX[kind].get(path.suffix.lower())
    if media is None:
        allowed = ", ".join(MEDIA_BY_SUFFIX[kind])
        raise invalid_input(
            f"`path` {path.name!r} has a suffix not read as {kind}; use one of {allowed}.", "path"
        )
    return media


def check_upload(path_text: str, kind: str, roots: Sequence[Path]) -> None:
    """Refuse a path that is not a regular file of the kind's suffixes inside an upload root.

    The path is resolved first (symlinks and `..` included), so a link cannot lead out of
    the roots: a model driven by injected text must not be able to read arbitrary files.
    """
    path = Path(path_text).expanduser()
    media_type_of(path, kind)
    resolved = path.resolve()
    if not any(resolved.is_relative_to(root.resolve()) for root in roots):
        allowed = ", ".join(str(r) for r in roots)
        raise invalid_input(
            f"`path` {path_text!r} is outside the upload roots ({allowed}); move the file "
            "there or set SOSOAPI_UPLOAD_ROOTS.",
            "path",
        )
    if not resolved.is_file():
        raise invalid_input(
            f"`path` {path_text!r} is not a readable file; give the path of a local file.",
            "path",
        )


def _read_bounded(path_text: str, max_bytes: int) -> tuple[bytes, bool]:
    with Path(path_text).expanduser().open("rb") as handle:
        body = handle.read(max_bytes + 1)
    return body[:max_bytes], len(body) > max_bytes


async def read_upload(
    path_text: str, kind: str, language: str | None, max_bytes: int
) -> RetrieveResult:
    media = media_type_of(Path(path_text), kind)
    body, truncated = await anyio.to_thread.run_sync(_read_bounded, path_text, max_bytes)
    read_at = datetime.now(UTC)

    async def fetch(url: str, *, accept: tuple[str, ...]) -> FetchOutcome:
        if url != UPLOAD_URL:  # a page's <track> must never reach the network from an upload
            return FetchOutcome(reason=Reason.UNSUPPORTED_SOURCE, retrieved_at=datetime.now(UTC))
        return FetchOutcome(
            reason=None,
            final_url=None,
            status_code=200,
            content_type=media,
            body=body,
            truncated=truncated,
            retrieved_at=read_at,
        )

    return await read_source(fetch, kind, UPLOAD_URL, language)
