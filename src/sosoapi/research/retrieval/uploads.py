"""Local files as evidence (stdio only): the same extraction and bounds as a retrieval.

A remote caller must never name a server path, so this use case is registered only on
the stdio surface; the file is read through the same `read_source` pipeline with a fetch
that answers for that one file and refuses anything else.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import anyio

from sosoapi.clock import utcnow
from sosoapi.contract.documents import DOCUMENT_KIND
from sosoapi.contract.errors import ErrorCode, ServiceError, SosoapiError, invalid_input
from sosoapi.contract.vocabulary import Reason
from sosoapi.egress.types import FetchOutcome, ResponseHeaders, Spool
from sosoapi.extract.limits import PAGES_MAX, WHOLE_TEXT_DEFAULT
from sosoapi.research.documents.reading import read_document
from sosoapi.research.offload import Offload
from sosoapi.research.retrieval.captures import Captured
from sosoapi.research.retrieval.reading import read_captured

UPLOAD_URL = "upload:local-file"
MEDIA_BY_SUFFIX = {
    "url_text": {
        ".txt": "text/plain",
        ".html": "text/html",
        ".htm": "text/html",
        ".xhtml": "application/xhtml+xml",
    },
    "published_captions": {".vtt": "text/vtt", ".srt": "application/x-subrip"},
    DOCUMENT_KIND: {".pdf": "application/pdf"},
}
_CHUNK = 1 << 20  # a PDF is copied to its private file a MiB at a time


def media_type_of(path: Path, kind: str) -> str:
    media = MEDIA_BY_SUFFIX[kind].get(path.suffix.lower())
    if media is None:
        allowed = ", ".join(MEDIA_BY_SUFFIX[kind])
        raise invalid_input(
            f"`path` {path.name!r} has a suffix not read as {kind}; use one of {allowed}.", "path"
        )
    return media


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Unreadable(SosoapiError):
    """Outside the roots, missing, a link swapped in, not a regular file: one answer for all."""


def _refuse_broad(roots: Sequence[Path]) -> None:
    """A root of `/` or the home directory itself would expose every secret the user has."""
    broad = {Path("/"), Path(os.path.realpath(Path.home()))}
    for root in roots:
        if Path(os.path.realpath(root)) in broad:
            raise ServiceError(
                ErrorCode.UNAVAILABLE,
                f"the upload root {str(root)!r} is the whole disk or the home directory, so "
                "uploads are off; set SOSOAPI_UPLOAD_ROOTS to the directories (`:`-separated) "
                "that hold the files to read, and restart the server.",
            )


def _refuse_missing(roots: Sequence[Path], resolved: Path) -> None:
    """A root that does not exist (a typo, a folder not made yet) is this tool's error
    naming the variable, not a server that will not start: the rest of it keeps working."""
    missing = [r for r in roots if not _real(r).is_dir()]
    if not missing:
        return
    present = [_real(r) for r in roots if r not in missing]
    if any(resolved.is_relative_to(b) and resolved != b for b in present):
        return  # the file lies in a root that exists
    names = ", ".join(repr(str(r)) for r in missing)
    raise ServiceError(
        ErrorCode.UNAVAILABLE,
        f"SOSOAPI_UPLOAD_ROOTS names {names}, which is not an existing directory, so nothing "
        "there can be read; create it (`mkdir -p`), or set SOSOAPI_UPLOAD_ROOTS in this "
        "server's config to existing directories (`:`-separated) and restart the server "
        "(`sosoapi connect --upload-root DIR` prints a block with one).",
    )


def _open_below(base: Path, parts: Sequence[str]) -> int:
    """Open `base/parts` one component at a time, never following a link below `base`."""
    fd = os.open(base, _DIR_FLAGS & ~os.O_NOFOLLOW)
    try:
        for part in parts[:-1]:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
        return os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def open_upload(path_text: str, kind: str, roots: Sequence[Path]) -> tuple[int, str]:
    """Open the file once and check what was opened; return the descriptor and media type.

    The path is resolved, the resolved path must lie inside a root, and it is then opened
    component by component with O_NOFOLLOW, so a link swapped in after the check fails
    instead of leading out of the roots; O_NONBLOCK keeps a FIFO from hanging the call.
    The suffix judged is the resolved file's, not a link's name.
    """
    _refuse_broad(roots)
    media_type_of(Path(path_text), kind)
    resolved = Path(os.path.realpath(Path(path_text).expanduser()))
    _refuse_missing(roots, resolved)
    base = next((b for b in map(_real, roots) if resolved.is_relative_to(b)), None)
    if base is None or resolved == base:
        raise Unreadable(path_text)
    media = MEDIA_BY_SUFFIX[kind].get(resolved.suffix.lower())
    if media is None:  # a link named .txt to a file that is not one
        raise Unreadable(path_text)
    try:
        fd = _open_below(base, resolved.relative_to(base).parts)
    except OSError:
        raise Unreadable(path_text) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Unreadable(path_text)
    return fd, media


def _real(root: Path) -> Path:
    return Path(os.path.realpath(root.expanduser()))


def check_upload(path_text: str, kind: str, roots: Sequence[Path]) -> None:
    """Refuse, before anything is written, a path `open_upload` would not read."""
    try:
        os.close(open_upload(path_text, kind, roots)[0])
    except Unreadable:
        allowed = ", ".join(str(r) for r in roots)
        raise invalid_input(
            f"`path` {path_text!r} is not a readable file inside the upload roots ({allowed}); "
            "give the path of a regular file there, or set SOSOAPI_UPLOAD_ROOTS.",
            "path",
        ) from None


def _read_bounded(fd: int, max_bytes: int) -> tuple[bytes, bool]:
    with os.fdopen(fd, "rb") as handle:
        body = handle.read(max_bytes + 1)
    return body[:max_bytes], len(body) > max_bytes


async def read_upload(
    path_text: str,
    kind: str,
    language: str | None,
    max_bytes: int,
    roots: Sequence[Path],
    whole_max: int = WHOLE_TEXT_DEFAULT,
    max_pages: int = PAGES_MAX,
    capture_max_bytes: int = 0,
    *,
    pool: Offload,
) -> Captured:
    """Read the file through the page pipeline, parsing in `pool` (a PDF through the
    document tool's, copied to its private file, never whole in memory); gone or swapped
    since the check: not_found."""
    try:
        fd, media = await anyio.to_thread.run_sync(open_upload, path_text, kind, roots)
    except (Unreadable, ServiceError):
        fd, media = -1, ""
    if kind == DOCUMENT_KIND:
        return await read_document(
            _document_fetch(fd, media), UPLOAD_URL, language, max_bytes=max_bytes,
            max_pages=max_pages, whole_max=whole_max, capture_max_bytes=capture_max_bytes,
            pool=pool,
        )  # fmt: skip
    body, truncated = (b"", False)
    if fd >= 0:
        body, truncated = await anyio.to_thread.run_sync(_read_bounded, fd, max_bytes)
    read_at = utcnow()

    async def fetch(url: str, *, accept: tuple[str, ...]) -> FetchOutcome:
        if url != UPLOAD_URL:  # a page's <track> must never reach the network from an upload
            return FetchOutcome(reason=Reason.UNSUPPORTED_SOURCE, retrieved_at=utcnow())
        if fd < 0:
            return FetchOutcome(reason=Reason.NOT_FOUND, retrieved_at=read_at)
        return FetchOutcome(
            reason=None,
            final_url=None,
            status_code=200,
            headers=ResponseHeaders({"content-type": media}),
            body=body,
            truncated=truncated,
            retrieved_at=read_at,
        )

    return await read_captured(fetch, kind, UPLOAD_URL, language, whole_max=whole_max, pool=pool)


def _document_fetch(fd: int, media: str) -> Callable[..., Awaitable[FetchOutcome]]:
    """The one fetch a PDF upload answers: the opened file, copied into the reader's spool."""
    read_at = utcnow()

    async def fetch(url: str, *, accept: tuple[str, ...], spool: Spool) -> FetchOutcome:
        if url != UPLOAD_URL:
            return FetchOutcome(reason=Reason.UNSUPPORTED_SOURCE, retrieved_at=utcnow())
        if fd < 0:
            return FetchOutcome(reason=Reason.NOT_FOUND, retrieved_at=read_at)
        truncated = await anyio.to_thread.run_sync(_copy_bounded, fd, spool)
        return FetchOutcome(
            None,
            status_code=200,
            headers=ResponseHeaders({"content-type": media}),
            truncated=truncated,
            retrieved_at=read_at,
        )

    return fetch


def _copy_bounded(fd: int, spool: Spool) -> bool:
    """Copy at most `spool.max_bytes` of the file into the spool; True when it had more."""
    left = spool.max_bytes
    with os.fdopen(fd, "rb") as handle:
        while chunk := handle.read(min(_CHUNK, left + 1)):
            if len(chunk) > left:
                spool.sink.write(chunk[:left])
                return True
            spool.sink.write(chunk)
            left -= len(chunk)
    return False
