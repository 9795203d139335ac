"""Client secrets are stored hashed: present the SDK the hash of what the client sent.

The SDK's client authentication compares the presented secret with the stored one. We
keep only SHA-256 hashes (like every token), so on /token and /revoke this middleware
replaces the secret with its hash before the SDK compares; the plain secret never reaches
the store, and the stored hash, presented as a secret, is hashed again and fails.

No presented secret may slip past the hashing, so the body is read with the very parser the
SDK uses (Starlette's form parser: urlencoded and multipart alike) and handed on re-encoded
as one urlencoded form; the Basic header is decoded the way the SDK decodes it. What the
SDK then reads is only what we hashed.
"""

from __future__ import annotations

import base64
import binascii
import json
from urllib.parse import quote, unquote, urlencode

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sosoapi.auth.tokens import hash_token
from sosoapi.oauth.asgi_bodies import read_body, replaying

CLIENT_AUTH_PATHS = frozenset({"/token", "/revoke"})
MAX_FORM_BYTES = 64 * 1024
FORM = b"application/x-www-form-urlencoded"


class BadForm(ValueError):
    """The body is not a form we can read (malformed multipart, a file part)."""


async def hashed_form(scope: Scope, body: bytes) -> bytes:
    """The body as the SDK would parse it, re-encoded urlencoded, every secret hashed."""
    sent = False

    async def once() -> Message:
        nonlocal sent
        more = not sent
        sent = True
        return {"type": "http.request", "body": body if more else b"", "more_body": False}

    request = Request({**scope, "type": "http"}, once)
    try:
        form = await request.form()
    except Exception as exc:  # Starlette's MultiPartException, without an app to map it
        raise BadForm("the form body could not be parsed") from exc
    pairs: list[tuple[str, str]] = []
    try:
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                raise BadForm(f"field {key!r} is a file; send the form fields as text")
            pairs.append((key, hash_token(value) if key == "client_secret" and value else value))
    finally:
        await form.close()
    return urlencode(pairs).encode()


def hashed_basic(header: str) -> str | None:
    """The Basic header with its secret hashed, or None when the SDK could not read it.

    Decoded exactly as the SDK decodes it (lenient base64, UTF-8, `id:secret`, both parts
    percent-decoded), so there is no header the SDK reads that we did not hash.
    """
    try:
        decoded = base64.b64decode(header[6:]).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    client_id, sep, secret = decoded.partition(":")
    if not sep:
        return None
    hashed = f"{quote(unquote(client_id), safe='')}:{quote(hash_token(unquote(secret)), safe='')}"
    return "Basic " + base64.b64encode(hashed.encode()).decode()


class ClientSecretHasher:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in CLIENT_AUTH_PATHS:
            await self.app(scope, receive, send)
            return
        read = await read_body(receive, MAX_FORM_BYTES)
        if read is None:
            await _too_large(send)
            return
        body = read
        try:
            body = await hashed_form(scope, body)
        except BadForm as exc:
            await _bad_form(send, str(exc))
            return
        dropped = (b"content-length", b"content-type", b"authorization")
        headers = [(k, v) for k, v in scope["headers"] if k not in dropped]
        headers += [(b"content-length", str(len(body)).encode()), (b"content-type", FORM)]
        for k, v in scope["headers"]:
            if k == b"authorization":
                value = v.decode("latin-1")
                if value.startswith("Basic "):
                    hashed = hashed_basic(value)
                    if hashed is None:
                        continue  # unreadable: the SDK finds no Basic credentials at all
                    value = hashed
                headers.append((b"authorization", value.encode("latin-1")))
        await self.app({**scope, "headers": headers}, replaying(body, receive), send)


async def _too_large(send: Send) -> None:
    await send({"type": "http.response.start", "status": 413, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def _bad_form(send: Send, why: str) -> None:
    """RFC 6749's error shape: the client's request is malformed."""
    body = json.dumps(
        {"error": "invalid_request", "error_description": f"{why} (RFC 6749 section 3.2)"}
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": body})
