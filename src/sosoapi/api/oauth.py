"""Wiring the OAuth authorization server into `sosoapi serve`.

The SDK serves the protocol endpoints (metadata, /register, /authorize, /token, /revoke)
over our provider; we add the consent page and protected-resource metadata that names
the `agent:research` scope, for /mcp and for the REST API at the server's base URL.
"""

from __future__ import annotations

from mcp.server.auth.routes import create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from starlette.routing import BaseRoute

from sosoapi.app import Application
from sosoapi.auth.tokens import RESEARCH_SCOPE
from sosoapi.web.consent import ConsentPage
from sosoapi.web.oauth_provider import StoreOAuthProvider

RESOURCE_NAME = "SosoAPI Research"


def oauth_auth_settings(base: str) -> AuthSettings:
    """The SDK's auth settings: we issue tokens and check their resource in our gate."""
    return AuthSettings(
        issuer_url=base,  # type: ignore[arg-type]  # validated as a URL, empty path kept
        resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
        required_scopes=[],
        validate_token_resource=False,  # McpBearerGate refuses tokens issued for elsewhere
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[RESEARCH_SCOPE], default_scopes=[RESEARCH_SCOPE]
        ),
        revocation_options=RevocationOptions(enabled=True),
    )


def oauth_routes(application: Application, base: str) -> tuple[StoreOAuthProvider, list[BaseRoute]]:
    """The provider for the SDK, and our routes: consent page, resource metadata."""
    provider = StoreOAuthProvider(application.oauth, base, [f"{base}/mcp", base])
    routes: list[BaseRoute] = [*ConsentPage(application.oauth, base).routes()]
    settings = oauth_auth_settings(base)
    for resource in (settings.resource_server_url or settings.issuer_url, settings.issuer_url):
        routes.extend(
            create_protected_resource_routes(
                resource_url=resource,
                authorization_servers=[settings.issuer_url],
                scopes_supported=[RESEARCH_SCOPE],
                resource_name=RESOURCE_NAME,
            )
        )
    return provider, routes
