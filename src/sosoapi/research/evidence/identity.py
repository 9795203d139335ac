"""Evidence identity and content digests (docs/product.md, "Evidence")."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from sosoapi.contract.documents import AnyResult, DocumentResult
from sosoapi.research.evidence.passages import CutPassages, passages_of
from sosoapi.research.retrieval.finished import AnyFinished
from sosoapi.store.records import CaptureWrite, EvidenceWrite

DEFAULT_PORTS = {"https": 443, "http": 80}


def canonical_json(value: Any) -> str:
    """The one canonical JSON form (sorted keys, no spaces, UTF-8 kept) that digests and
    stored capture metadata are written in: the same value always gives the same bytes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalize_source_url(url: str) -> str:
    """Lower-case scheme and host, no default port, no fragment: one source, one identity."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    netloc = (
        host
        if parts.port in (None, DEFAULT_PORTS.get(parts.scheme.lower()))
        else f"{host}:{parts.port}"
    )
    return urlunsplit((parts.scheme.lower(), netloc, parts.path or "/", parts.query, ""))


def canonical_object(members: dict[str, str]) -> str:
    """`canonical_json` of an object whose member values are already canonical JSON: a
    long text encoded once serves every document it stands in."""
    return "{" + ",".join(f"{canonical_json(k)}:{v}" for k, v in sorted(members.items())) + "}"


def whole_members(read: AnyFinished) -> dict[str, str]:
    """The whole text and cues as canonical JSON, encoded once for the digest and the
    stored whole."""
    return {
        "text": canonical_json(read.whole_text),
        "segments": canonical_json([s.wire() for s in read.whole_segments]),
    }


def content_digest(read: AnyFinished, whole: dict[str, str] | None = None) -> str:
    """SHA-256 over the canonical JSON of the content, never of retrieval timestamps: the
    whole text and cues (`whole`, from `whole_members`), so a change past the receipt's
    bound is a new revision (for a text within the bound this is the digest it always had)."""
    members = {key: canonical_json(value) for key, value in _described(read.result).items()}
    return sha256_hex(canonical_object(members | (whole or whole_members(read))))


def _described(result: AnyResult) -> dict[str, Any]:
    """What a result says of its content besides the text: a document's metadata and
    pages, or a page's title and description and a caption file's format."""
    if isinstance(result, DocumentResult):
        return {
            "title": result.title,
            "authors": result.authors,
            "date": result.date,
            "subject": result.subject,
            "pages": [page.wire() for page in result.pages],
            "mime_type": result.provenance.mime_type,
            "language": result.provenance.language,
        }
    provenance = result.provenance
    return {
        "title": result.title,
        "description": result.description,
        "mime_type": provenance.mime_type,
        "caption_format": provenance.caption_format,
        "language": provenance.language,
    }


def as_evidence(read: AnyFinished) -> AnyFinished:
    """The content a result's evidence keeps. A caption file's title and description are
    its own (none: WebVTT and SubRip carry neither); a page that linked it through a
    `<track>` lends the receipt its title, never the evidence, so reading the same file
    directly or through the page keeps one revision."""
    if read.result.provenance.content_kind != "published_caption_file":
        return read
    return replace(read, result=read.result.model_copy(update={"title": None, "description": None}))


def evidence_write(
    workspace_id: str,
    read: AnyFinished,
    captures: tuple[CaptureWrite, ...] = (),
    citation: dict[str, Any] | None = None,
    passages: CutPassages | None = None,
    receipt: str | None = None,
    whole: dict[str, str] | None = None,
) -> EvidenceWrite | None:
    """The evidence a result becomes: only `ready` and `partial` results become evidence,
    with the `captures` of what it was read from (kept with a new revision only) and the
    `passages` cut where it was parsed when they fit its content; `receipt` is the result's
    canonical JSON when the caller has it, the content unless the evidence keeps less;
    `whole` its `whole_members` when the caller has them."""
    if read.result.status not in ("ready", "partial"):
        return None
    evidence = as_evidence(read)
    content = receipt if receipt is not None and evidence is read else None
    result, provenance = evidence.result, evidence.result.provenance
    whole = whole or whole_members(evidence)
    digest = content_digest(evidence, whole)
    if provenance.source_url is None:
        identity_parts: list[str | None] = [result.kind, "upload", digest]
    else:
        identity_parts = [
            result.kind,
            normalize_source_url(provenance.source_url),
            provenance.language,
        ]
    return EvidenceWrite(
        workspace_id=workspace_id,
        identity=sha256_hex(canonical_json(identity_parts)),
        kind=result.kind,
        source_url=provenance.source_url,
        language=provenance.language,
        digest=digest,
        content=content or canonical_json(result.wire()),
        passages=passages_of(evidence, passages),
        whole=whole_json(evidence, whole),
        captures=captures,
        citation=canonical_json(citation) if citation else None,
    )


def whole_json(read: AnyFinished, whole: dict[str, str] | None = None) -> str | None:
    """What an evidence revision keeps beyond its receipt (`whole`, from `whole_members`):
    None when nothing was cut."""
    if read.whole_text == read.result.text and read.whole_segments == read.result.segments:
        return None
    return canonical_object(whole or whole_members(read))


def settle_writes(
    workspace_id: str,
    read: AnyFinished,
    captures: tuple[CaptureWrite, ...] = (),
    citation: dict[str, Any] | None = None,
    passages: CutPassages | None = None,
) -> tuple[str, EvidenceWrite | None]:
    """What a settle stores, each part encoded once: the receipt's result JSON (also the
    evidence's content) and the evidence write. Its cost grows with the text: the caller
    runs it off the event loop."""
    whole = whole_members(read)  # a caption file's evidence differs in title only
    result = read.result
    uncut = {
        "text": result.text == read.whole_text,
        "segments": result.segments == read.whole_segments,
    }
    receipt = canonical_object(
        {k: whole[k] if uncut.get(k) else canonical_json(v) for k, v in result.wire().items()}
    )
    return receipt, evidence_write(workspace_id, read, captures, citation, passages, receipt, whole)
