"""What every page for people shares: one template environment, one header table, and
one way to read a form posted from our own pages.

Each kind of page sets its own Content-Security-Policy value in `POLICIES` (the console
and consent pages run no script at all; Swagger UI needs its bundle and an inline start);
every other header is the same for all of them.

Cross-site posts are refused twice: the `Origin` (when a browser sends one) must be this
server's, and the form must echo a token derived from a cookie the page set (the console's
session secret, the consent page's per-page nonce). A wrong Origin alone is refused even
with the right token, and the right Origin alone is refused without it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import Response

from sosoapi.contract.errors import forbidden

PageKind = Literal["console", "consent", "docs", "docs_inline"]
_DOCS = (
    "default-src 'self'; script-src 'self' {inline}blob:; worker-src 'self' blob:; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'"
)
POLICIES: dict[PageKind, str] = {
    "console": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
    # no form-action: the consent form's answer redirects to the client's own address
    "consent": (
        "default-src 'none'; style-src 'self'; img-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    # Only this server: the bundles' few outside references (ReDoc's footer logo) are
    # blocked by the browser before any request leaves, so the pages work offline the same.
    "docs": _DOCS.format(inline=""),
    "docs_inline": _DOCS.format(inline="'unsafe-inline' "),  # Swagger UI starts inline
}
HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # a real Origin on our own posts, none elsewhere
    "Cache-Control": "no-store",
}
# The console opens no windows and is opened by none: it isolates itself. The consent and
# docs pages must not, since OAuth sign-in from /docs runs in a popup that reports back to
# its opener across /authorize.
ISOLATION: dict[PageKind, dict[str, str]] = {
    "console": {
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Resource-Policy": "same-origin",
    },
}


def secured(response: Response, kind: PageKind, *, cache_seconds: int | None = None) -> Response:
    """The one header table on `response`, with `kind`'s policy; static assets may cache."""
    response.headers.update(HEADERS)
    response.headers.update(ISOLATION.get(kind, {}))
    response.headers["Content-Security-Policy"] = POLICIES[kind]
    if cache_seconds is not None:
        response.headers["Cache-Control"] = f"max-age={cache_seconds}"
    return response


@cache
def templates() -> Environment:
    """The one Jinja environment over `web/templates` (autoescaped, strict)."""
    return Environment(
        loader=PackageLoader("sosoapi.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def add_template_names(filters: dict[str, Callable[..., Any]], **names: Any) -> None:
    """Filters and globals a kind of page adds to the shared environment (once)."""
    env = templates()
    env.filters.update(filters)
    env.globals.update(names)


def csrf_token(binding: str) -> str:
    """A form's token, derived from the cookie value that binds it to this browser."""
    return hashlib.sha256(f"sosoapi-csrf:{binding}".encode()).hexdigest()


def csrf_matches(binding: str | None, sent: str) -> bool:
    return bool(binding) and hmac.compare_digest(csrf_token(binding or ""), sent)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def same_origin(request: Request, own: Iterable[str] = ()) -> bool:
    """The post came from this server's pages; no Origin (older agents) lets the token decide."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    allowed = {origin_of(str(request.url)), *(origin_of(u) for u in own)}
    return origin.lower() in allowed


async def read_form(
    request: Request, binding: str | None, *, own: Iterable[str] = (), max_fields: int = 10
) -> dict[str, str]:
    """A same-origin urlencoded form that echoes the token of `binding`, or `forbidden`."""
    if not same_origin(request, own):
        raise forbidden("The form was posted from another site; use this server's own form.")
    body = (await request.body()).decode("utf-8", errors="replace")
    form = {k: v[0] for k, v in parse_qs(body, max_num_fields=max_fields).items()}
    if binding is not None and not csrf_matches(binding, form.get("csrf", "")):
        raise forbidden("The form is stale; reload the page and submit it again.")
    return form
