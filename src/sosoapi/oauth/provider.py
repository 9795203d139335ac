"""The MCP SDK's authorization-server protocol over our OAuth grants.

The SDK's handlers (metadata, /register, /authorize, /token, /revoke) call this provider;
it adapts their models to `OAuthGrants` and runs the store work off the event loop.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlencode

import anyio
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from sosoapi.auth.tokens import RESEARCH_SCOPE, hash_token, refusal, same_resource
from sosoapi.clock import utcnow
from sosoapi.oauth.grants import CONSENT_PATH, GrantEnded, Issued, OAuthGrants
from sosoapi.oauth.registration import check_registration
from sosoapi.store.records import TokenRecord

log = logging.getLogger("sosoapi.oauth")
MAX_STATE_CHARS = 1024  # bounds what one consent request stores


def _token(issued: Issued) -> OAuthToken:
    return OAuthToken(
        access_token=issued.access_token,
        token_type="Bearer",  # noqa: S106 - the token type, not a secret
        expires_in=issued.expires_in,
        scope=" ".join(issued.scopes),
        refresh_token=issued.refresh_token,
    )


def _granted(token: str, record: TokenRecord) -> dict[str, Any]:
    """The SDK's view of one of our stored OAuth tokens."""
    return {
        "token": token,
        "client_id": record.client_id or "",
        "scopes": sorted(record.scopes),
        "expires_at": int(record.expires_at.timestamp()) if record.expires_at else None,
        "resource": record.resource,
        "subject": record.user_id,
    }


class StoreOAuthProvider:
    """`OAuthAuthorizationServerProvider` backed by the store.

    `resources` are the resource indicators this server accepts (its /mcp URL first, the
    default when a client names none, then the REST API's base URL).
    """

    def __init__(
        self,
        grants: OAuthGrants,
        base_url: str,
        resources: list[str],
        builtin: list[OAuthClientInformationFull] = (),  # type: ignore[assignment]
    ) -> None:
        self.grants = grants
        self.base_url = base_url
        self.resources = resources
        self.builtin = {c.client_id: c for c in builtin}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id in self.builtin:  # our own pages' clients: their URIs follow our URL
            return self.builtin[client_id]
        record = await anyio.to_thread.run_sync(self.grants.client, client_id)
        if record is None:
            return None
        info = OAuthClientInformationFull.model_validate_json(record.info)
        try:  # registered before the rules held: never send a browser to its URIs
            check_registration([str(u) for u in info.redirect_uris or ()], info.client_name)
        except RegistrationError:
            log.warning("oauth client refused: unsafe registration client_id=%s", client_id)
            return None
        # The secret is stored hashed; ClientSecretHasher hashes what the client presents.
        return info.model_copy(update={"client_secret": record.secret_hash})

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        uris = [str(u) for u in client_info.redirect_uris or ()]
        check_registration(uris, client_info.client_name)  # RegistrationError: a 400
        stored = client_info.model_copy(update={"client_secret": None})
        name = (client_info.client_name or "unnamed client")[:200]
        await anyio.to_thread.run_sync(
            self.grants.register,
            client_info.client_id or "",
            client_info.client_secret,
            name,
            stored.model_dump_json(),
            utcnow(),
        )
        log.info("oauth client registered client_id=%s", client_info.client_id)

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        resource = params.resource or self.resources[0]
        if not any(same_resource(resource, ours) for ours in self.resources):
            raise AuthorizeError(
                "invalid_target",
                f"resource {resource} is not served here; use {self.resources[0]}",
            )
        if params.state is not None and len(params.state) > MAX_STATE_CHARS:
            raise AuthorizeError(
                "invalid_request", f"state is longer than {MAX_STATE_CHARS} characters"
            )
        scopes = params.scopes or (client.scope.split() if client.scope else [RESEARCH_SCOPE])
        stored = {
            "scopes": scopes,
            "code_challenge": params.code_challenge,
            "redirect_uri": str(params.redirect_uri),
            "redirect_uri_provided_explicitly": params.redirect_uri_provided_explicitly,
            "state": params.state,
            "resource": resource,
        }
        request_id = await anyio.to_thread.run_sync(
            self.grants.begin, client.client_id or "", stored, utcnow()
        )
        return f"{self.base_url}{CONSENT_PATH}?{urlencode({'request': request_id})}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        record = await anyio.to_thread.run_sync(
            self.grants.code, authorization_code, client.client_id or "", utcnow()
        )
        if record is None:
            return None
        params = json.loads(record.params)
        return AuthorizationCode(
            code=authorization_code,
            scopes=params["scopes"],
            expires_at=record.expires_at.timestamp(),
            client_id=record.client_id,
            code_challenge=params["code_challenge"],
            redirect_uri=params["redirect_uri"],
            redirect_uri_provided_explicitly=params["redirect_uri_provided_explicitly"],
            resource=params["resource"],
            subject=record.user_id,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        record = await anyio.to_thread.run_sync(
            self.grants.code, authorization_code.code, client.client_id or "", utcnow()
        )
        if record is None:
            raise TokenError("invalid_grant", "authorization code does not exist")
        try:
            issued = await anyio.to_thread.run_sync(
                self.grants.exchange, authorization_code.code, record, utcnow()
            )
        except LookupError:
            raise TokenError("invalid_grant", "authorization code was already used") from None
        except GrantEnded as ended:
            raise TokenError("invalid_grant", f"{ended}; sign in again") from None
        log.info("oauth code exchanged client_id=%s", client.client_id)
        return _token(issued)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        record = await anyio.to_thread.run_sync(
            self.grants.refresh_record, refresh_token, client.client_id or "", utcnow()
        )
        if record is None:
            return None
        return RefreshToken(**_granted(refresh_token, record))

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        record = await anyio.to_thread.run_sync(
            self.grants.refresh_record, refresh_token.token, client.client_id or "", utcnow()
        )
        if record is None:
            raise TokenError("invalid_grant", "refresh token does not exist")
        try:
            issued = await anyio.to_thread.run_sync(self.grants.rotate, record, scopes, utcnow())
        except LookupError:
            raise TokenError("invalid_grant", "refresh token was already used") from None
        except GrantEnded as ended:
            raise TokenError("invalid_grant", f"{ended}; sign in again") from None
        log.info("oauth refresh rotated client_id=%s", client.client_id)
        return _token(issued)

    async def load_access_token(self, token: str) -> AccessToken | None:
        record = await anyio.to_thread.run_sync(
            self.grants.guard.repo.token_by_hash, hash_token(token)
        )
        if record is None or record.kind != "oauth_access" or refusal(record, utcnow()):
            return None
        return AccessToken(**_granted(token, record))

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        await anyio.to_thread.run_sync(self.grants.revoke, token.token, utcnow())
        log.info("oauth grant revoked client_id=%s", token.client_id)
