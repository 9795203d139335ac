"""The HTTP API: one POST route per tool that has an `api_operation` in the contract.

The body is the tool's input and the response body its `structuredContent`; the same
`ResearchService.call` runs behind MCP and HTTP, so the two cannot drift apart.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

from fastapi import FastAPI, Request
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from sosoapi import __version__
from sosoapi.api.bodies import BodyLimit, parse_json_body
from sosoapi.api.hosts import HostCheck, HostPolicy
from sosoapi.api.problems import PROBLEM_JSON, PROBLEM_SCHEMA, problem_response
from sosoapi.api.security import OPERATION_SECURITY, security_schemes
from sosoapi.auth.challenge import bearer_token
from sosoapi.auth.errors import BadToken, Fixes, NoToken
from sosoapi.contract.catalog import visible_tools
from sosoapi.contract.errors import ErrorCode, ServiceError, invalid_input
from sosoapi.contract.numbers import not_a_number, whole_number
from sosoapi.disconnects import unless_gone
from sosoapi.incidents import incident
from sosoapi.research.corpora.export_slots import ServedExport
from sosoapi.research.service import ResearchService

log = logging.getLogger("sosoapi.api")
# An HTTP caller fixes its token in the Authorization header.
AUTH_FIXES: Fixes = {
    NoToken: "send `Authorization: Bearer <token>`; an operator mints one with "
    "`sosoapi tokens create`.",
    BadToken: "send a current token as `Authorization: Bearer <token>`; an operator mints "
    "one with `sosoapi tokens create`.",
}


class Mounted(Protocol):
    """An app served beside the routes (MCP at /mcp), its running context, its auth metadata."""

    @property
    def app(self) -> ASGIApp: ...
    @property
    def running(self) -> AbstractAsyncContextManager[None]: ...
    @property
    def metadata_url(self) -> str: ...


def _bearer(request: Request) -> str | None:
    return bearer_token(request.headers.get("authorization"))


def _route(
    research: ResearchService, tool: str, metadata_url: str
) -> Callable[[Request], Awaitable[Response]]:
    reads = research.operations[tool].action == "read"  # a write's receipt outlives its caller

    async def endpoint(request: Request) -> Response:
        try:
            token = _bearer(request)
            principal = await research.authenticate(token, AUTH_FIXES)  # 401 before the body
            arguments = parse_json_body(await request.body())
            run = functools.partial(
                research.call,
                tool,
                token,
                arguments,
                transport="http",
                fixes=AUTH_FIXES,
                verified=principal,
            )
            outcome = await unless_gone(request, run) if reads else await run()
            if outcome is None:
                log.info("api caller gone tool=%s", tool)
                return Response(status_code=204)  # nobody reads it
        except ServiceError as error:
            log.info("api refused tool=%s code=%s field=%s", tool, error.code, error.field)
            return problem_response(error, request.url.path, metadata_url)
        except ClientDisconnect:
            raise  # BodyLimit answers a cut-off body; a client that left needs no answer
        except Exception:
            failure = incident(log, f"surface=http tool={tool}")
            return problem_response(failure, request.url.path, metadata_url)
        headers = {}
        if outcome.corpus_revision is not None:
            headers["Corpus-Revision"] = str(outcome.corpus_revision)
        if outcome.language_match is not None:
            found = outcome.language_match  # an RFC 8941 dictionary of the MCP _meta's keys
            headers["Language-Match"] = (
                f'asked="{found.asked}", matched="{found.matched}", by={found.by}'
            )
        return JSONResponse(outcome.output.wire(), headers=headers)

    return endpoint


EXPORT_PATH = "/research-api/corpora/export"
WACZ_TYPE = "application/wacz"


def _export_route(
    research: ResearchService, metadata_url: str
) -> Callable[[Request], Awaitable[Response]]:
    """GET a sealed corpus as WACZ. The export waits for one of the server's export slots
    and its parts are built in the heavy-read pool (refusals, `busy` past the workspace's
    queue included, come before the first byte, as problems; a client that leaves drops
    its queued export or stops the build), then zipped as the client reads, never held in
    memory or spooled twice."""

    async def endpoint(request: Request) -> Response:
        query = request.query_params
        try:
            revision_text = query.get("revision")
            revision = None if revision_text is None else whole_number(revision_text, least=1)
            if revision_text is not None and revision is None:
                raise invalid_input(
                    not_a_number("revision", revision_text, least=1)
                    + ", or leave it out for the latest.",
                    "revision",
                )
            token = _bearer(request)
            await research.authenticate(token, AUTH_FIXES)
            run = functools.partial(
                research.open_export,
                token,
                query.get("workspace_id", ""),
                query.get("corpus_id", ""),
                revision,
                fixes=AUTH_FIXES,
            )
            export = await unless_gone(request, run)
        except ServiceError as error:
            log.info("api refused export code=%s field=%s", error.code, error.field)
            return problem_response(error, request.url.path, metadata_url)
        except Exception:
            failure = incident(log, "surface=http export")
            return problem_response(failure, request.url.path, metadata_url)
        if export is None:
            log.info("api caller gone tool=export")
            return Response(status_code=204)  # nobody reads it
        name = f"corpus-{query.get('corpus_id', '')}.wacz"
        headers = {
            "Content-Disposition": f'attachment; filename="{name}"',
            "Export-Revisions": str(export.counts.revisions),
        }
        return ExportResponse(export, headers=headers)

    return endpoint


class ExportResponse(StreamingResponse):
    """The export's chunks as the client reads them. Whatever ends the answer (the last
    chunk, the client gone, an error, the server stopping) closes the export: its process
    and scratch end and its export slot goes to the next in turn, even when the body was
    never started."""

    def __init__(self, export: ServedExport, headers: dict[str, str]) -> None:
        super().__init__(export.stream(), media_type=WACZ_TYPE, headers=headers)
        self.export = export

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.export.aclose()


def _export_openapi() -> dict[str, Any]:
    """The export's parameters, security and answers, as the other operations declare theirs."""
    uuid_schema = {"type": "string", "format": "uuid"}
    problem = {"content": {PROBLEM_JSON: {"schema": PROBLEM_SCHEMA}}}
    return {
        "security": OPERATION_SECURITY,
        "parameters": [
            {"name": "workspace_id", "in": "query", "required": True, "schema": uuid_schema},
            {"name": "corpus_id", "in": "query", "required": True, "schema": uuid_schema},
            {
                "name": "revision",
                "in": "query",
                "required": False,
                "description": "the corpus revision; the latest when absent",
                "schema": {"type": "integer", "minimum": 1, "maximum": 9007199254740991},
            },
        ],
        "responses": {
            "200": {
                "description": "The WACZ package (docs/archive.md)",
                "content": {WACZ_TYPE: {"schema": {"type": "string", "format": "binary"}}},
            },
            **{
                code: {"description": text, **problem}
                for code, text in (
                    ("400", "Invalid input"),
                    ("401", "Authentication required"),
                    ("403", "Forbidden"),
                    ("404", "Not found"),
                    ("429", "Too many exports waiting for the workspace; retry after Retry-After"),
                    ("503", "The database is unavailable; retry"),
                )
            },
        },
    }


def _openapi_extra(contract: dict[str, Any]) -> dict[str, Any]:
    """The operation as the contract publishes it, with the contract's own examples, so
    /docs shows real arguments instead of values made up from the schema's patterns."""
    problem = {"content": {PROBLEM_JSON: {"schema": PROBLEM_SCHEMA}}}
    output = {k: v for k, v in contract["outputSchema"].items() if k != "$schema"}
    example = contract.get("example", {})
    request: dict[str, Any] = {"schema": contract["inputSchema"]}
    if "arguments" in example:
        request["example"] = example["arguments"]
    response: dict[str, Any] = {"schema": output}
    if "structuredContent" in example:
        response["example"] = example["structuredContent"]
    return {
        "security": OPERATION_SECURITY,
        "requestBody": {"required": True, "content": {"application/json": request}},
        "responses": {
            "200": {
                "description": "The result (a receipt in any state is a normal result)",
                "content": {"application/json": response},
            },
            **{
                code: {"description": text, **problem}
                for code, text in (
                    ("400", "Invalid input"),
                    ("401", "Authentication required"),
                    ("403", "Forbidden"),
                    ("404", "Not found"),
                    ("413", "Request body larger than SOSOAPI_MAX_REQUEST_BYTES"),
                    ("422", "mutation_id reused with other arguments"),
                    ("429", "Too many calls queued for the workspace; retry after Retry-After"),
                    ("503", "The database is unavailable; retry with the same mutation_id"),
                )
            },
        },
    }


def public_base(host: str, port: int, public_url: str | None) -> str:
    """How clients reach us: `public_url` when given (behind a proxy, say), else host:port."""
    return (public_url or f"http://{'[' + host + ']' if ':' in host else host}:{port}").rstrip("/")


def create_http_app(
    research: ResearchService,
    *,
    running: AbstractAsyncContextManager[object],
    mcp: Mounted,
    host: str,
    port: int,
    profile: str,
    base: str,
    max_request_bytes: int,
    pages: Sequence[BaseRoute] = (),
    allowed_hosts: Sequence[str] = (),
) -> FastAPI:
    """The HTTP API, with the MCP app `mcp` mounted beside it at /mcp, and `pages` (the
    OAuth endpoints and pages, the docs) served before it; `running` is the service's own
    lifetime (workers, sweeper), entered with the app's lifespan."""
    metadata_url = mcp.metadata_url

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with running, mcp.running:
            log.info("serving host=%s port=%d profile=%s", host, port, profile)
            yield

    api = FastAPI(
        title="SosoAPI Research",
        version=__version__,
        description="Safe, bounded, durable public-source retrieval for research agents.",
        lifespan=lifespan,
        docs_url=None,  # served from packaged assets by sosoapi.web.docs, not a CDN
        redoc_url=None,
    )
    declare_security(api, security_schemes(base))

    @api.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    for name, contract in visible_tools("full", "http").items():
        if "api_operation" not in contract:
            continue
        api.add_api_route(
            contract["api_operation"],
            _route(research, name, metadata_url),
            methods=["POST"],
            name=name,
            summary=contract.get("title"),
            description=contract["description"],
            openapi_extra=_openapi_extra(contract),
            include_in_schema=True,
        )
    api.add_api_route(
        EXPORT_PATH,
        _export_route(research, metadata_url),
        methods=["GET"],
        name="corpora_export",
        summary="Export a sealed corpus as WACZ",
        description="A WACZ package (WARC captures, CDXJ index, pages, CSL-JSON and BibTeX "
        "bibliography, corpus.json); query: workspace_id, corpus_id, revision (optional). "
        "The permission check is sosoapi_research_corpora_get's.",
        openapi_extra=_export_openapi(),
        include_in_schema=True,
    )
    _refuse_other_methods(api)
    api.router.routes.extend(pages)
    api.mount("/", mcp.app)
    api.add_middleware(BodyLimit, max_bytes=max_request_bytes)
    api.add_middleware(HostCheck, policy=HostPolicy.build(host, base, allowed_hosts))  # outermost
    return api


def declare_security(api: FastAPI, schemes: dict[str, Any]) -> None:
    """Add the security schemes to the OpenAPI document (each operation names them)."""
    generate = api.openapi

    def openapi() -> dict[str, Any]:
        if api.openapi_schema is None:
            schema = generate()
            schema.setdefault("components", {})["securitySchemes"] = schemes
        return api.openapi_schema or {}

    api.openapi = openapi  # type: ignore[method-assign]


class MethodNotAllowed:
    """An ASGI app answering 405 problem+json with `Allow` for any method that reaches it."""

    def __init__(self, allowed: list[str]) -> None:
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        allowed = ", ".join(self.allowed)
        error = ServiceError(
            ErrorCode.METHOD_NOT_ALLOWED,
            f"{request.method} is not allowed on {request.url.path}; use {allowed}.",
        )
        response = problem_response(error, request.url.path)
        response.headers["Allow"] = ", ".join(self.allowed)
        await response(scope, receive, send)


def _refuse_other_methods(api: FastAPI) -> None:
    """405 for a known path asked with another method (instead of the /mcp mount's 404)."""
    for route in list(api.routes):
        allowed = sorted(getattr(route, "methods", None) or [])
        path = getattr(route, "path", "")
        if allowed and (path.startswith("/research-api/") or path == "/healthz"):
            api.router.routes.append(Route(path, MethodNotAllowed(allowed)))
