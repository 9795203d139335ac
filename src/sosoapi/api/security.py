"""How the HTTP API's OpenAPI document describes its authentication.

Two schemes: a pasted bearer token, or OAuth sign-in through the consent page with the
built-in public client that Swagger UI at /docs uses.
"""

from __future__ import annotations

from sosoapi.auth.tokens import RESEARCH_SCOPE
from sosoapi.oauth.grants import DOCS_CLIENT_ID


def security_schemes(base: str) -> dict[str, object]:
    """The OpenAPI security schemes: a pasted bearer token, or OAuth sign-in."""
    return {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "A token from `sosoapi init` or `sosoapi tokens create`.",
        },
        "oauth": {
            "type": "oauth2",
            "description": f"Sign in on the consent page (client id `{DOCS_CLIENT_ID}`).",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": f"{base}/authorize",
                    "tokenUrl": f"{base}/token",
                    "refreshUrl": f"{base}/token",
                    "scopes": {RESEARCH_SCOPE: "retrieve sources; read evidence and corpora"},
                }
            },
        },
    }


OPERATION_SECURITY = [{"bearer": []}, {"oauth": [RESEARCH_SCOPE]}]
