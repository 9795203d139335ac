"""The OAuth authorization server of `sosoapi serve`, put together.

The SDK serves the protocol endpoints (metadata, /register, /authorize, /token, /revoke)
over our provider; we add the consent page, the API docs (whose sign-in is a built-in
public client) and protected-resource metadata naming the `agent:research` scope, for
/mcp and for the REST API at the server's base URL.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.auth.routes import create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull
from starlette.routing import BaseRoute

from sosoapi.auth.oauth import DOCS_CLIENT_ID, OAuthGrants
from sosoapi.auth.tokens import RESEARCH_SCOPE
from sosoapi.clock import utcnow
from sosoapi.web.consent import ConsentPage
from sosoapi.web.docs import docs_redirect_uri, docs_routes
from sosoapi.web.oauth_provider import StoreOAuthProvider

RESOURCE_NAME = "SosoAPI Research"


@dataclass(frozen=True, slots=True)
class OAuthServer:
    """What the MCP app needs (settings, provider) and the pages the HTTP app serves."""

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


def oauth_server(grants: OAuthGrants, base: str) -> OAuthServer:
    """The provider for the SDK, and our routes: consent page, docs, resource metadata."""
    docs_client = OAuthClientInformationFull(
        client_id=DOCS_CLIENT_ID,
        client_name="API docs (Swagger UI)",
        redirect_uris=[docs_redirect_uri(base)],
        token_endpoint_auth_method="none",  # noqa: S106 - a public client: PKCE, no secret
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=RESEARCH_SCOPE,
    )
    grants.ensure_client(DOCS_CLIENT_ID, docs_client.client_name or "", utcnow())
    provider = StoreOAuthProvider(grants, base, [f"{base}/mcp", base], builtin=[docs_client])
    settings = oauth_auth_settings(base)
    routes: list[BaseRoute] = [*ConsentPage(grants, base).routes(), *docs_routes(base)]
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
