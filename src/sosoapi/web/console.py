"""The read-only review console at /console: server-rendered pages over the research tools.

A person signs in with a token; the session cookie names a server-side session (stored
hashed) that speaks for that token, and every page goes through `research.review.Review`,
which calls the same tools and the same permission check as an agent would. Pages carry no
script at all; the headers forbid inline code, framing and any other origin.

Where new pages go: add a route to `routes` and, for a workspace page, a `NAV` entry.
Third-party text that needs markup inside it (a diff, marked query words) is cut into
pieces by `console_text`, and the template wraps and escapes each piece.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from datetime import datetime
from importlib import resources
from typing import Any, get_args
from urllib.parse import parse_qs, urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from sosoapi.auth.errors import BadToken, Fixes, NoToken
from sosoapi.auth.sessions import csrf_matches, csrf_token
from sosoapi.auth.tokens import Principal
from sosoapi.contract.errors import ServiceError, forbidden, invalid_input
from sosoapi.contract.evidence_tools import SearchOutput
from sosoapi.contract.models import Kind, format_timestamp
from sosoapi.research.operation import Outcome
from sosoapi.research.review import FILTERS, Review
from sosoapi.research.search import parse_query
from sosoapi.web.console_text import diff_pieces, marked

log = logging.getLogger("sosoapi.web.console")

ROOT = "/console"
COOKIE = "sosoapi_console"
PAGE_SIZE = 50
SEARCH_PAGE_SIZE = 20
KINDS: tuple[str, ...] = get_args(Kind)
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
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
SEARCH_FIELDS = ("q", "kind", "corpus")
_NEXT = re.compile(r"^/console(/[A-Za-z0-9._~/?=&%-]*)?$")

Page = Callable[[Request, Principal], Awaitable[Response]]


def source_href(url: str | None) -> str | None:
    """A source URL fit to be a link: http(s) only, so `javascript:` and friends stay text."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def clock_time(ms: int) -> str:
    """A cue time as H:MM:SS.mmm."""
    seconds, millis = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}.{millis:03d}"


def when(value: datetime | None) -> str:
    """A time a person reads: UTC to the second (the contract's own form is in the JSON)."""
    return format_timestamp(value.replace(microsecond=0)) if value is not None else ""


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("sosoapi.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(source_href=source_href, clock_time=clock_time, when=when, marked=marked)
    env.globals.update(NAV=NAV, FILTERS=FILTERS, KINDS=KINDS)
    return env


def safe_next(raw: str | None) -> str:
    """Where to go after signing in: only a console path of this server."""
    return raw if raw and _NEXT.match(raw) and "//" not in raw else "/console"


class Console:
    """The console's routes, bound to one `Review`."""

    def __init__(self, review: Review, *, secure_cookie: bool = False) -> None:
        self.review = review
        self.secure_cookie = secure_cookie
        self.env = _environment()
        self.css = resources.files("sosoapi.web").joinpath("static/console.css").read_bytes()

    def routes(self) -> list[Route]:
        ws = ROOT + "/workspaces/{workspace_id}"
        pages: list[tuple[str, Page]] = [
            (ws, self.overview),
            (ws + "/retrievals", self.retrievals),
            (ws + "/retrievals/{retrieval_id}", self.retrieval),
            (ws + "/evidence", self.evidence_list),
            (ws + "/evidence/{evidence_id}", self.evidence),
            (ws + "/evidence/{evidence_id}/diff", self.evidence_diff),
            (ws + "/search", self.search),
            (ws + "/projects", self.projects),
            (ws + "/projects/{project_id}", self.project),
            (ws + "/corpora", self.corpora),
            (ws + "/corpora/{corpus_id}", self.corpus),
        ]
        return [
            Route(ROOT, self.home, methods=["GET"]),
            Route(ROOT + "/sign-in", self.sign_in, methods=["POST"]),
            Route(ROOT + "/sign-out", self.sign_out, methods=["POST"]),
            Route(ROOT + "/console.css", self.stylesheet, methods=["GET"]),
            *(Route(path, self._page(view), methods=["GET"]) for path, view in pages),
        ]

    # --- plumbing ---------------------------------------------------------------------------

    def render(
        self, request: Request, template: str, status: int = 200, **context: Any
    ) -> HTMLResponse:
        secret = request.cookies.get(COOKIE)
        context.setdefault("signed_in", False)
        context.setdefault("workspace_id", None)
        context.setdefault("active", None)
        html = self.env.get_template(f"console/{template}").render(
            csrf=csrf_token(secret) if secret else "", **context
        )
        return secured(HTMLResponse(html, status_code=status))

    def _page(self, view: Page) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                principal = await self.review.principal(request.cookies.get(COOKIE))
                return await view(request, principal)
            except ServiceError as error:
                return self.refusal(request, error)

        return endpoint

    def refusal(self, request: Request, error: ServiceError) -> Response:
        """Signed out: the sign-in form, coming back here after; otherwise the error page."""
        log.info("console refused path=%s code=%s", request.url.path, error.code)
        if error.code == "unauthenticated":
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return self.render(request, "sign_in.html", 401, error=None, next=safe_next(target))
        return self.render(
            request, "error.html", error.http_status, error=error, signed_in=True, **_ids(request)
        )

    async def _form(self, request: Request) -> dict[str, str]:
        """A same-origin urlencoded form; a cross-site post is refused before it is read."""
        origin = request.headers.get("origin")
        if origin is not None and origin != _own_origin(request):
            raise forbidden("The form was posted from another site; use the console's own form.")
        body = (await request.body()).decode("utf-8", errors="replace")
        return {k: v[0] for k, v in parse_qs(body, max_num_fields=10).items()}

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
            principal = await self.review.principal(request.cookies.get(COOKIE))
        except ServiceError:
            return self.render(request, "sign_in.html", error=None, next="/console")
        whoami = (await self.review.tool(principal, "sosoapi_whoami", {})).output
        return self.render(request, "workspaces.html", signed_in=True, whoami=whoami)

    async def sign_in(self, request: Request) -> Response:
        try:
            form = await self._form(request)
            opened = await self.review.sign_in(form.get("token", "").strip() or None, FIXES)
        except ServiceError as error:
            log.info("console sign-in refused code=%s", error.code)
            status = error.http_status
            return self.render(request, "sign_in.html", status, error=error, next="/console")
        response = secured(RedirectResponse(safe_next(form.get("next")), status_code=303))
        seconds = int((opened.expires_at - self.review.clock()).total_seconds())
        self._cookie(request, response, opened.secret, max(seconds, 1))
        log.info("console signed in")
        return response

    async def sign_out(self, request: Request) -> Response:
        secret = request.cookies.get(COOKIE)
        try:
            form = await self._form(request)
            if not secret or not csrf_matches(secret, form.get("csrf", "")):
                raise forbidden("The sign-out form is stale; reload the page and sign out again.")
        except ServiceError as error:
            return self.render(request, "error.html", error.http_status, error=error)
        await self.review.sign_out(secret)
        response = secured(RedirectResponse(ROOT, status_code=303))
        response.delete_cookie(COOKIE, path=ROOT, httponly=True, samesite="strict")
        log.info("console signed out")
        return response

    async def stylesheet(self, request: Request) -> Response:
        response = Response(self.css, media_type="text/css; charset=utf-8")
        return secured(response)

    # --- pages ------------------------------------------------------------------------------

    async def overview(self, request: Request, principal: Principal) -> Response:
        workspace_id = request.path_params["workspace_id"]
        overview = await self.review.overview(principal, workspace_id)
        return self._show(request, "overview.html", "overview", overview=overview)

    async def retrievals(self, request: Request, principal: Principal) -> Response:
        query = request.query_params
        chosen = {name: query.get(name, "") for name in FILTERS}
        page = await self.review.retrievals(
            principal,
            request.path_params["workspace_id"],
            chosen,
            query.get("cursor") or None,
            PAGE_SIZE,
        )
        kept = {k: v for k, v in chosen.items() if v}
        return self._show(
            request, "retrievals.html", "retrievals", page=page, chosen=chosen, kept=kept
        )

    async def retrieval(self, request: Request, principal: Principal) -> Response:
        retrieval = await self.review.retrieval(
            principal, request.path_params["workspace_id"], request.path_params["retrieval_id"]
        )
        return self._show(request, "retrieval.html", "retrievals", retrieval=retrieval)

    async def evidence_list(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(request, principal, "sosoapi_research_evidence_list", cursor=1)
        return self._show(request, "evidence_list.html", "evidence", listing=outcome.output)

    async def evidence(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(
            request,
            principal,
            "sosoapi_research_evidence_get",
            evidence_id=request.path_params["evidence_id"],
            revision=_revision(request),
        )
        return self._show(request, "evidence.html", "evidence", evidence=outcome.output.evidence)

    async def evidence_diff(self, request: Request, principal: Principal) -> Response:
        compared = await self.review.compare(
            principal,
            request.path_params["workspace_id"],
            request.path_params["evidence_id"],
            *_revision_pair(request),
        )
        return self._show(
            request,
            "evidence_diff.html",
            "evidence",
            diff=compared.diff,
            new=compared.new,
            pieces=diff_pieces(compared.diff.changes, compared.new.text),
        )

    async def search(self, request: Request, principal: Principal) -> Response:
        """The search form, and a page of results once there is a query."""
        chosen = {name: request.query_params.get(name, "").strip() for name in SEARCH_FIELDS}
        # the corpus choices; also the workspace's permission check when there is no query
        corpora = await self._tool(request, principal, "sosoapi_research_corpora_list")
        found, error = None, None
        if chosen["q"]:
            try:
                found = await self._search(request, principal, chosen)
            except ServiceError as refused:
                if refused.code != "invalid_input":
                    raise
                error = refused
        return self._show(
            request,
            "search.html",
            "search",
            status=400 if error else 200,
            chosen=chosen,
            kept={k: v for k, v in chosen.items() if v},
            corpora=corpora.output.items,
            found=found,
            error=error,
            phrases=parse_query(chosen["q"]),
        )

    async def _search(
        self, request: Request, principal: Principal, chosen: dict[str, str]
    ) -> SearchOutput:
        outcome = await self._tool(
            request,
            principal,
            "sosoapi_research_evidence_search",
            cursor=1,
            query=chosen["q"],
            kind=chosen["kind"] or None,
            corpus_id=chosen["corpus"] or None,
            limit=SEARCH_PAGE_SIZE,
        )
        return outcome.output

    async def projects(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(request, principal, "sosoapi_research_projects_list", cursor=1)
        return self._show(request, "projects.html", "projects", listing=outcome.output)

    async def project(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(
            request,
            principal,
            "sosoapi_research_projects_get",
            project_id=request.path_params["project_id"],
        )
        return self._show(request, "project.html", "projects", project=outcome.output.project)

    async def corpora(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(request, principal, "sosoapi_research_corpora_list", cursor=1)
        return self._show(request, "corpora.html", "corpora", listing=outcome.output)

    async def corpus(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(
            request,
            principal,
            "sosoapi_research_corpora_get",
            id=request.path_params["corpus_id"],
            revision=_revision(request),
        )
        return self._show(
            request,
            "corpus.html",
            "corpora",
            snapshot=outcome.output.snapshot,
            revision=outcome.corpus_revision,
        )

    async def _tool(
        self, request: Request, principal: Principal, tool: str, cursor: int = 0, **arguments: Any
    ) -> Outcome:
        """A read tool in the page's workspace; `cursor` 1 passes the page's ?cursor= on."""
        arguments["workspace_id"] = request.path_params["workspace_id"]
        if cursor and request.query_params.get("cursor"):
            arguments["cursor"] = request.query_params["cursor"]
        wanted = {k: v for k, v in arguments.items() if v is not None}
        return await self.review.tool(principal, tool, wanted)

    def _show(
        self, request: Request, template: str, active: str, status: int = 200, **context: Any
    ) -> Response:
        return self.render(
            request, template, status, signed_in=True, active=active, **_ids(request), **context
        )


def _ids(request: Request) -> dict[str, Any]:
    return {"workspace_id": request.path_params.get("workspace_id")}


def _revision(request: Request, name: str = "revision") -> int | None:
    """A revision number from the query string, None when absent."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise invalid_input(
            f"`{name}` {raw!r} is not a revision number; use a whole number from 1.", name
        )
    return int(raw)


def _revision_pair(request: Request) -> tuple[int, int]:
    """`from` and `to` of a diff page: both required, so the URL names what it shows."""
    old, new = _revision(request, "from"), _revision(request, "to")
    if old is None or new is None:
        name = "from" if old is None else "to"
        raise invalid_input(f"`{name}` is missing; name both revisions, e.g. ?from=1&to=2.", name)
    return old, new


def _own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


def secured(response: Response) -> Response:
    """The console's headers on every response it sends."""
    response.headers.update(SECURITY_HEADERS)
    return response


def add_console(app: Any, review: Review, *, secure_cookie: bool = False) -> None:
    """Serve the console under /console on `app`, ahead of any catch-all mount."""
    app.router.routes[0:0] = Console(review, secure_cookie=secure_cookie).routes()
