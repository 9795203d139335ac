"""The OAuth consent page: the person pastes a personal token and approves or denies.

Protected against cross-site posting (a per-page nonce in a SameSite=Strict cookie whose
derived token the form must echo, and the `Origin` checked: `pages.read_form`) and
clickjacking (`frame-ancestors 'none'`, `X-Frame-Options: DENY`). The cookie is `Secure`
when served over HTTPS, so the same flow works on a plain-HTTP loopback address.
"""

from __future__ import annotations

import logging
import secrets
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from sosoapi.clock import utcnow
from sosoapi.contract.errors import ServiceError
from sosoapi.oauth.grants import CONSENT_PATH, ConsentRefused, OAuthGrants, Pending
from sosoapi.web.page_kit import csrf_token, read_form, secured, templates

log = logging.getLogger("sosoapi.oauth")
CSRF_COOKIE = "sosoapi_consent"
CSS = (resources.files("sosoapi.web") / "static" / "oauth.css").read_bytes()


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
        return secured(Response(CSS, media_type="text/css"), "consent", cache_seconds=3600)

    async def show(self, request: Request) -> Response:
        request_id = request.query_params.get("request", "")
        pending = await anyio.to_thread.run_sync(self.grants.pending, request_id, utcnow())
        if pending is None:
            return self._stale()
        nonce = secrets.token_urlsafe(32)
        response = self._form(request_id, pending, nonce, error=None, status=200)
        response.set_cookie(
            CSRF_COOKIE,
            nonce,
            max_age=900,
            path=CONSENT_PATH,
            secure=request.url.scheme == "https",
            httponly=True,
            samesite="strict",
        )
        return response

    async def decide(self, request: Request) -> Response:
        nonce = request.cookies.get(CSRF_COOKIE, "")
        try:
            form = await read_form(request, nonce, own=[self.base_url])
        except ServiceError:
            log.info("oauth consent refused reason=cross_site")
            return secured(
                Response(
                    "This form was not posted from its own page; open the sign-in link again.",
                    status_code=403,
                ),
                "consent",
            )
        request_id = form.get("request", "")
        if form.get("decision") == "deny":
            pending = await anyio.to_thread.run_sync(self.grants.deny, request_id, utcnow())
            if pending is None:
                return self._stale()
            log.info("oauth consent denied client_id=%s", pending.client_id)
            return self._back(
                pending,
                error="access_denied",
                error_description="The person declined the sign-in.",
            )
        if form.get("decision") != "approve":
            return self._stale()
        try:
            code, approved = await anyio.to_thread.run_sync(
                self.grants.approve, request_id, form.get("token", ""), utcnow()
            )
        except ConsentRefused as refused:
            log.info("oauth consent refused reason=token")
            pending = await anyio.to_thread.run_sync(self.grants.pending, request_id, utcnow())
            if pending is None:
                return self._stale()
            return self._form(request_id, pending, nonce, error=str(refused), status=400)
        log.info("oauth consent approved client_id=%s", approved.client_id)
        return self._back(approved, code=code)

    def _form(
        self, request_id: str, pending: Pending, nonce: str, *, error: str | None, status: int
    ) -> Response:
        redirect = urlsplit(pending.params["redirect_uri"])
        return self._page(
            "oauth/consent.html",
            status,
            client_name=pending.client_name,
            redirect_host=redirect.netloc or redirect.scheme,
            scopes=pending.params["scopes"],
            resource=pending.params["resource"],
            request_id=request_id,
            csrf=csrf_token(nonce),
            error=error,
        )

    def _stale(self) -> Response:
        return self._page("oauth/expired.html", 400)

    def _page(self, template: str, status: int, **context: Any) -> Response:
        html = templates().get_template(template).render(css=f"{CONSENT_PATH}.css", **context)
        return secured(HTMLResponse(html, status_code=status), "consent")

    def _back(self, pending: Pending, **params: str) -> Response:
        """Send the browser back to the client with a code or an error, and its state."""
        # The SDK builds the redirect as its /authorize does; imported here, as a server
        # loads the SDK at its first MCP or OAuth request, not at start (app.py).
        from mcp.server.auth.provider import construct_redirect_uri

        url = construct_redirect_uri(
            pending.params["redirect_uri"],
            **params,
            state=pending.params.get("state"),
            iss=self.base_url,  # RFC 9207: which server answered, against mix-up attacks
        )
        return RedirectResponse(url, status_code=303, headers={"Cache-Control": "no-store"})
