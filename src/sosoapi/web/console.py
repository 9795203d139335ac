"""The read-only review console at /console: sign-in, sessions and the page plumbing.

A person signs in with a token; the session cookie names a server-side session (stored
hashed, `research/review/sessions.py`) that speaks for that token, and every workspace
page (`console_pages.py`) goes through `research/review/views.py`, which calls the same
tools and the same permission check as an agent would. Pages carry no script at all; the
headers (`pages.py`) forbid inline code, framing and any other origin.

Third-party text that needs markup inside it (a diff, marked query words) is cut into
pieces by `console_text`, and the template wraps and escapes each piece.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from importlib import resources
from typing import Any, get_args
from urllib.parse import urlsplit

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from sosoapi.auth.errors import BadToken, Fixes, NoToken
from sosoapi.clock import utcnow
from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.contract.models import EvidenceKind, format_timestamp
from sosoapi.disconnects import unless_gone
from sosoapi.research.evidence.page_spans import PageLike, page_url
from sosoapi.research.review.sessions import ConsoleSessions
from sosoapi.research.review.views import FILTERS, Review
from sosoapi.web.console_pages import ConsolePages, Page
from sosoapi.web.console_text import marked
from sosoapi.web.page_kit import add_template_names, csrf_token, read_form, secured, templates

log = logging.getLogger("sosoapi.web.console")

ROOT = "/console"
COOKIE = "sosoapi_console"
KINDS: tuple[str, ...] = get_args(EvidenceKind)  # the search filter: pdf_text too
FIXES: Fixes = {
    NoToken: "paste a token into the form; mint one with `sosoapi tokens create`.",
    BadToken: "sign in with a current token; mint one with `sosoapi tokens create`.",
}
NAV = (
    ("overview", "Overview", ""),
    ("retrievals", "Retrievals", "/retrievals"),
    ("evidence", "Evidence", "/evidence"),
    ("projects", "Projects", "/projects"),
    ("corpora", "Corpora", "/corpora"),
    ("search", "Search", "/search"),
)
_NEXT = re.compile(r"^/console(/[A-Za-z0-9._~/?=&%-]*)?$")


def source_href(url: str | None) -> str | None:
    """A source URL fit to be a link: http(s) only, so `javascript:` and friends stay text."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def at_page(source_url: str | None, page: PageLike) -> str | None:
    """A PDF's source URL opened at `page` (`#page=N`), as its anchors link it."""
    return page_url(source_url, page) if source_url else None


def clock_time(ms: int) -> str:
    """A cue time as H:MM:SS.mmm."""
    seconds, millis = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}.{millis:03d}"


def when(value: datetime | None, now: datetime | None = None) -> Markup:
    """A time a person reads ("5 minutes ago", "2 Dec 2026, 13:28 UTC"), with the exact
    UTC time to the second on hover and in `datetime`."""
    if value is None:
        return Markup("")
    exact = value.astimezone(UTC).replace(microsecond=0)
    return Markup('<time datetime="{}" title="{}">{}</time>').format(
        format_timestamp(exact), exact.strftime("%Y-%m-%d %H:%M:%S UTC"), ago(exact, now)
    )


def ago(moment: datetime, now: datetime | None = None) -> str:
    seconds = ((now or utcnow()) - moment).total_seconds()
    for limit, size, unit in ((3600, 60, "minute"), (86400, 3600, "hour")):
        if 60 <= seconds < limit:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n > 1 else ''} ago"
    if 0 <= seconds < 60:
        return "just now"
    return f"{moment.day} {moment:%b %Y, %H:%M} UTC"


def safe_next(raw: str | None) -> str:
    """Where to go after signing in: only a console path of this server."""
    return raw if raw and _NEXT.match(raw) and "//" not in raw else "/console"


class Console:
    """The console's routes, bound to one session keeper and one `Review`."""

    def __init__(
        self, sessions: ConsoleSessions, review: Review, *, secure_cookie: bool = False
    ) -> None:
        self.sessions = sessions
        self.review = review
        self.secure_cookie = secure_cookie
        self.pages = ConsolePages(review, self.render)
        self.css = resources.files("sosoapi.web").joinpath("static/console.css").read_bytes()
        self.icon = resources.files("sosoapi.web").joinpath("static/favicon.svg").read_bytes()
        add_template_names(
            {
                "source_href": source_href,
                "clock_time": clock_time,
                "when": when,
                "marked": marked,
                "at_page": at_page,
            },
            NAV=NAV,
            FILTERS=FILTERS,
            KINDS=KINDS,
        )

    def routes(self) -> list[Route]:
        pages = self.pages.table(ROOT + "/workspaces/{workspace_id}")
        return [
            Route(ROOT, self.home, methods=["GET"]),
            Route(ROOT + "/sign-in", self.sign_in, methods=["POST"]),
            Route(ROOT + "/sign-out", self.sign_out, methods=["POST"]),
            Route(ROOT + "/console.css", self.stylesheet, methods=["GET"]),
            Route(ROOT + "/favicon.svg", self.favicon, methods=["GET"]),
            *(Route(path, self._page(view), methods=["GET"]) for path, view in pages),
        ]

    # --- plumbing ---------------------------------------------------------------------------

    def render(
        self, request: Request, template: str, status: int = 200, **context: Any
    ) -> Response:
        secret = request.cookies.get(COOKIE)
        context.setdefault("signed_in", False)
        context.setdefault("workspace_id", None)
        context.setdefault("active", None)
        html = (
            templates()
            .get_template(f"console/{template}")
            .render(csrf=csrf_token(secret) if secret else "", **context)
        )
        return secured(HTMLResponse(html, status_code=status), "console")

    def _page(self, view: Page) -> Callable[[Request], Awaitable[Response]]:
        """A page's endpoint. Every page is a read: when the browser goes away (a closed
        tab, a reload) before the page is made, its reads stop (`unless_gone`), so a
        diff or a search nobody will see gives its heavy-read slot back."""

        async def endpoint(request: Request) -> Response:
            try:
                principal = await self.sessions.principal(request.cookies.get(COOKIE))
                await request.body()  # a GET's empty body: the next message is the disconnect
                shown = await unless_gone(request, functools.partial(view, request, principal))
            except ServiceError as error:
                return self.refusal(request, error)
            if shown is None:
                log.info("console reader gone path=%s", request.url.path)
                return Response(status_code=204)  # nobody reads it
            return shown

        return endpoint

    def refusal(self, request: Request, error: ServiceError) -> Response:
        """Signed out: the sign-in form, coming back here after; otherwise the error page."""
        log.info("console refused path=%s code=%s", request.url.path, error.code)
        if error.code == ErrorCode.UNAUTHENTICATED:
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return self.render(request, "sign_in.html", 401, error=None, next=safe_next(target))
        workspace_id = request.path_params.get("workspace_id")
        return self.render(
            request,
            "error.html",
            error.http_status,
            error=error,
            signed_in=True,
            workspace_id=workspace_id,
        )

    def _cookie(self, request: Request, response: Response, secret: str, max_age: int) -> None:
        response.set_cookie(
            COOKIE,
            secret,
            max_age=max_age,
            path=ROOT,
            httponly=True,
            secure=self.secure_cookie or request.url.scheme == "https",
            samesite="strict",
        )

    # --- sessions ---------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        try:
            principal = await self.sessions.principal(request.cookies.get(COOKIE))
        except ServiceError:
            return self.render(request, "sign_in.html", error=None, next="/console")
        whoami = (await self.review.tool(principal, "sosoapi_whoami", {})).output
        return self.render(request, "workspaces.html", signed_in=True, whoami=whoami)

    async def sign_in(self, request: Request) -> Response:
        """No token to echo before a session exists: the Origin check guards this form."""
        try:
            form = await read_form(request, None)
            opened = await self.sessions.sign_in(form.get("token", "").strip() or None, FIXES)
        except ServiceError as error:
            log.info("console sign-in refused code=%s", error.code)
            status = error.http_status
            return self.render(request, "sign_in.html", status, error=error, next="/console")
        response = secured(
            RedirectResponse(safe_next(form.get("next")), status_code=303), "console"
        )
        seconds = int((opened.expires_at - self.sessions.clock()).total_seconds())
        self._cookie(request, response, opened.secret, max(seconds, 1))
        log.info("console signed in")
        return response

    async def sign_out(self, request: Request) -> Response:
        secret = request.cookies.get(COOKIE)
        try:
            await read_form(request, secret or "")
        except ServiceError as error:
            return self.render(request, "error.html", error.http_status, error=error)
        assert secret is not None  # read_form refuses a missing binding
        await self.sessions.sign_out(secret)
        response = secured(RedirectResponse(ROOT, status_code=303), "console")
        response.delete_cookie(COOKIE, path=ROOT, httponly=True, samesite="strict")
        log.info("console signed out")
        return response

    async def stylesheet(self, request: Request) -> Response:
        return secured(Response(self.css, media_type="text/css; charset=utf-8"), "console")

    async def favicon(self, request: Request) -> Response:
        return secured(Response(self.icon, media_type="image/svg+xml"), "console")


def add_console(
    app: Any, sessions: ConsoleSessions, review: Review, *, secure_cookie: bool = False
) -> None:
    """Serve the console under /console on `app`, ahead of any catch-all mount."""
    app.router.routes[0:0] = Console(sessions, review, secure_cookie=secure_cookie).routes()
