"""/docs (Swagger UI) and /redoc from assets shipped in a pip dependency: no CDN, no fonts.

Swagger UI signs in with the built-in public client `sosoapi-docs` (authorization code
with PKCE, through our consent page), or takes a pasted bearer token.
"""

from __future__ import annotations

from importlib import resources

from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sosoapi.auth.tokens import RESEARCH_SCOPE
from sosoapi.oauth.grants import DOCS_CLIENT_ID, DOCS_REDIRECT_PATH
from sosoapi.web.page_kit import secured

ASSETS = resources.files("fastapi_offline") / "static"  # Swagger UI and ReDoc bundles
MEDIA = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
TITLE = "SosoAPI Research"


def docs_routes(base: str, openapi_url: str = "/openapi.json") -> list[Route]:
    cache: dict[str, bytes] = {}

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in MEDIA:
            return Response(status_code=404)
        if name not in cache:
            cache[name] = (ASSETS / name).read_bytes()
        return secured(Response(cache[name], media_type=MEDIA[name]), "docs", cache_seconds=86400)

    async def swagger(request: Request) -> Response:
        page = get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{TITLE} - API docs",
            swagger_js_url="/docs/assets/swagger-ui-bundle.js",
            swagger_css_url="/docs/assets/swagger-ui.css",
            swagger_favicon_url="/docs/assets/favicon.png",
            oauth2_redirect_url=DOCS_REDIRECT_PATH,
            init_oauth={
                "clientId": DOCS_CLIENT_ID,
                "usePkceWithAuthorizationCodeGrant": True,
                "scopes": RESEARCH_SCOPE,
                "additionalQueryStringParams": {"resource": base},
            },
            swagger_ui_parameters={"persistAuthorization": False},
        )
        return secured(page, "docs_inline")  # Swagger UI starts from an inline script

    async def redirect(request: Request) -> Response:
        return secured(get_swagger_ui_oauth2_redirect_html(), "docs_inline")

    async def redoc(request: Request) -> Response:
        page = get_redoc_html(
            openapi_url=openapi_url,
            title=f"{TITLE} - API reference",
            redoc_js_url="/docs/assets/redoc.standalone.js",
            redoc_favicon_url="/docs/assets/favicon.png",
            with_google_fonts=False,
        )
        return secured(page, "docs")

    return [
        Route("/docs", swagger, methods=["GET"]),
        Route(DOCS_REDIRECT_PATH, redirect, methods=["GET"]),
        Route("/docs/assets/{name}", asset, methods=["GET"]),
        Route("/redoc", redoc, methods=["GET"]),
    ]
