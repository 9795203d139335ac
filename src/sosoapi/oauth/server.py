"""The OAuth authorization server of `sosoapi serve`, put together.

The SDK serves the protocol endpoints (metadata, /register, /authorize, /token, /revoke)
over our provider (`provider.py`); we add our metadata route, the built-in public client
the API docs sign in with, and protected-resource metadata naming the `agent:research`
scope, for /mcp and for the REST API at the server's base URL. The pages a person sees
(the consent page, the docs) are web/'s, put beside these routes by `app.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.routes import (
    build_metadata,
    cors_middleware,
    create_protected_resource_routes,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull
from starlette.routing import BaseRoute, Route

from sosoapi.auth.tokens import RESEARCH_SCOPE
from sosoapi.clock import utcnow
from sosoapi.oauth.grants import DOCS_CLIENT_ID, DOCS_REDIRECT_PATH, OAuthGrants
from sosoapi.oauth.provider import StoreOAuthProvider

RESOURCE_NAME = "SosoAPI Research"


@dataclass(frozen=True, slots=True)
class OAuthServer:
    """What the MCP app needs (settings, provider) and the metadata routes the HTTP app
    serves."""

    settings: AuthSettings
    provider: StoreOAuthProvider
    routes: list[BaseRoute]


def oauth_auth_settings(base: str) -> AuthSettings:
    """The SDK's auth settings: we issue tokens and check their resource in our gate."""
    return AuthSettings(
        issuer_url=base,  # validated as a URL, empty path kept
        resource_server_url=f"{base}/mcp",
        required_scopes=[],
        validate_token_resource=False,  # McpBearerGate refuses tokens issued for elsewhere
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[RESEARCH_SCOPE], default_scopes=[RESEARCH_SCOPE]
        ),
        revocation_options=RevocationOptions(enabled=True),
    )


# Public clients (PKCE, no secret: every client that registers with "none", and the API
# docs) authenticate at the token endpoint with `none`; the SDK's metadata omits it.
TOKEN_AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"]


def authorization_metadata_route(settings: AuthSettings) -> Route:
    """RFC 8414 metadata as the SDK builds it, naming every token auth method we accept;
    served ahead of the SDK's own route (pages come before the /mcp mount)."""
    metadata = build_metadata(
        settings.issuer_url,
        settings.service_documentation_url,
        settings.client_registration_options or ClientRegistrationOptions(),
        settings.revocation_options or RevocationOptions(),
    )
    metadata.token_endpoint_auth_methods_supported = TOKEN_AUTH_METHODS
    return Route(
        "/.well-known/oauth-authorization-server",
        endpoint=cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
        methods=["GET", "OPTIONS"],
    )


def oauth_server(grants: OAuthGrants, base: str) -> OAuthServer:
    """The provider for the SDK, and our routes: authorization and resource metadata."""
    docs_client = OAuthClientInformationFull(
        client_id=DOCS_CLIENT_ID,
        client_name="API docs (Swagger UI)",
        redirect_uris=[f"{base}{DOCS_REDIRECT_PATH}"],
        token_endpoint_auth_method="none",  # noqa: S106 - a public client: PKCE, no secret
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=RESEARCH_SCOPE,
    )
    grants.ensure_client(DOCS_CLIENT_ID, docs_client.client_name or "", utcnow())
    provider = StoreOAuthProvider(grants, base, [f"{base}/mcp", base], builtin=[docs_client])
    settings = oauth_auth_settings(base)
    routes: list[BaseRoute] = [authorization_metadata_route(settings)]
    for resource in (settings.resource_server_url or settings.issuer_url, settings.issuer_url):
        routes.extend(
            create_protected_resource_routes(
                resource_url=resource,
                authorization_servers=[settings.issuer_url],
                scopes_supported=[RESEARCH_SCOPE],
                resource_name=RESOURCE_NAME,
            )
        )
    return OAuthServer(settings, provider, routes)
