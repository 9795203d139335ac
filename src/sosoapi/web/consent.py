"""The OAuth consent page: the person pastes a personal token and approves or denies.

Protected against cross-site posting (a per-page token in a SameSite=Strict cookie that
the form must echo, and the `Origin` checked) and clickjacking (`frame-ancestors 'none'`,
`X-Frame-Options: DENY`). The cookie is `Secure` when served over HTTPS, so the same flow
works on a plain-HTTP loopback address.
"""

from __future__ import annotations

import logging
import secrets
from datetime import UTC, datetime
from importlib import resources
from urllib.parse import urlsplit

import anyio
from mcp.server.auth.provider import construct_redirect_uri
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from sosoapi.auth.oauth import ConsentRefused, OAuthGrants, Pending
from sosoapi.web.oauth_provider import CONSENT_PATH

log = logging.getLogger("sosoapi.oauth")
CSRF_COOKIE = "sosoapi_consent"
TEMPLATES = Jinja2Templates(directory=str(resources.files("sosoapi.web") / "templates"))
CSS = (resources.files("sosoapi.web") / "static" / "oauth.css").read_bytes()
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # a real Origin on our own post, none elsewhere
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


def _now() -> datetime:
    return datetime.now(UTC)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


class ConsentPage:
    def __init__(self, grants: OAuthGrants, base_url: str) -> None:
        self.grants = grants
        self.base_url = base_url

    def routes(self) -> list[Route]:
        return [
            Route(CONSENT_PATH, self.show, methods=["GET"]),
            Route(CONSENT_PATH, self.decide, methods=["POST"]),
            Route(f"{CONSENT_PATH}.css", self.css, methods=["GET"]),
        ]

    async def css(self, request: Request) -> Response:
        return Response(CSS, media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    async def show(self, request: Request) -> Response:
        request_id = request.query_params.get("request", "")
        pending = await anyio.to_thread.run_sync(self.grants.pending, request_id, _now())
        if pending is None:
            return self._stale(request)
        csrf = secrets.token_urlsafe(32)
        response = self._form(request, request_id, pending, csrf, error=None, status=200)
        response.set_cookie(
            CSRF_COOKIE,
            csrf,
            max_age=900,
            path=CONSENT_PATH,
            secure=request.url.scheme == "https",
            httponly=True,
            samesite="strict",
        )
        return response

    async def decide(self, request: Request) -> Response:
        form = await request.form()
        request_id = str(form.get("request", ""))
        csrf = str(form.get("csrf", ""))
        cookie = request.cookies.get(CSRF_COOKIE, "")
        if not self._same_origin(request) or not cookie or not secrets.compare_digest(csrf, cookie):
            log.info("oauth consent refused reason=cross_site")
            return Response(
                "This form was not posted from its own page; open the sign-in link again.",
                status_code=403,
                headers=PAGE_HEADERS,
            )
        if form.get("decision") == "deny":
            pending = await anyio.to_thread.run_sync(self.grants.deny, request_id, _now())
            if pending is None:
                return self._stale(request)
            log.info("oauth consent denied client_id=%s", pending.client_id)
            return self._back(
                pending,
                error="access_denied",
                error_description="The person declined the sign-in.",
            )
        if form.get("decision") != "approve":
            return self._stale(request)
        try:
            code, pending = await anyio.to_thread.run_sync(
                self.grants.approve, request_id, str(form.get("token", "")), _now()
            )
        except ConsentRefused as refused:
            log.info("oauth consent refused reason=token")
            pending = await anyio.to_thread.run_sync(self.grants.pending, request_id, _now())
            if pending is None:
                return self._stale(request)
            return self._form(request, request_id, pending, csrf, error=str(refused), status=400)
        log.info("oauth consent approved client_id=%s", pending.client_id)
        return self._back(pending, code=code)

    def _same_origin(self, request: Request) -> bool:
        origin = request.headers.get("origin")
        if origin is None:  # older agents send none on same-origin posts; the cookie decides
            return True
        own = {_origin(self.base_url), f"{request.url.scheme}://{request.headers.get('host', '')}"}
        return origin.lower() in own

    def _form(
        self,
        request: Request,
        request_id: str,
        pending: Pending,
        csrf: str,
        *,
        error: str | None,
        status: int,
    ) -> Response:
        redirect = urlsplit(pending.params["redirect_uri"])
        return TEMPLATES.TemplateResponse(
            request,
            "oauth/consent.html",
            {
                "client_name": pending.client_name,
                "redirect_host": redirect.netloc or redirect.scheme,
                "scopes": pending.params["scopes"],
                "resource": pending.params["resource"],
                "request_id": request_id,
                "csrf": csrf,
                "error": error,
                "css": f"{CONSENT_PATH}.css",
            },
            status_code=status,
            headers=PAGE_HEADERS,
        )

    def _stale(self, request: Request) -> Response:
        return TEMPLATES.TemplateResponse(
            request,
            "oauth/expired.html",
            {"css": f"{CONSENT_PATH}.css"},
            status_code=400,
            headers=PAGE_HEADERS,
        )

    def _back(self, pending: Pending, **params: str) -> Response:
        """Send the browser back to the client with a code or an error, and its state."""
        url = construct_redirect_uri(
            pending.params["redirect_uri"],
            **params,
            state=pending.params.get("state"),
            iss=self.base_url,  # RFC 9207: which server answered, against mix-up attacks
        )
        return RedirectResponse(url, status_code=303, headers={"Cache-Control": "no-store"})
