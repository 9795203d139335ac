"""Why auth refuses, as types: the problem in auth's words, the fix in the surface's.

A refusal carries its contract error code, the problem, and a fix any user can act on.
Each surface may word the fix for its own user (`fixes` in `ResearchService.call`): an
HTTP caller reads about the `Authorization` header, an MCP user about the client
config, a CLI user about `SOSOAPI_TOKEN` and `sosoapi init`.

    AuthRefused            a call refused by authentication or the permission check
      NoToken              unauthenticated
      BadToken             unauthenticated (unknown, expired or revoked)
      MissingScope         forbidden
      NotAMember           not_found (a non-member learns nothing more)
      ReadOnlyRole         forbidden
      ResearchDisabled     forbidden
    AdminRefused           an administration verb refused (a ValueError)
      UnknownScope, UnknownRole, NoSuchWorkspace
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from sosoapi.contract.errors import ErrorCode, ServiceError, SosoapiError


class AuthRefused(SosoapiError):
    code: ClassVar[ErrorCode]

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}; {fix}")
        self.problem = problem
        self.fix = fix

    def service_error(self, fixes: Mapping[type[AuthRefused], str] | None = None) -> ServiceError:
        """The contract error, its fix worded by the surface when it has its own words."""
        fix = (fixes or {}).get(type(self), self.fix)
        return ServiceError(self.code, f"{self.problem}; {fix}")


class NoToken(AuthRefused):
    code = ErrorCode.UNAUTHENTICATED


class BadToken(AuthRefused):
    code = ErrorCode.UNAUTHENTICATED


class MissingScope(AuthRefused):
    code = ErrorCode.FORBIDDEN


class NotAMember(AuthRefused):
    code = ErrorCode.NOT_FOUND


class ReadOnlyRole(AuthRefused):
    code = ErrorCode.FORBIDDEN


class ResearchDisabled(AuthRefused):
    code = ErrorCode.FORBIDDEN


Fixes = Mapping[type[AuthRefused], str]


class AdminRefused(SosoapiError, ValueError):
    """An administration verb refused; the CLI names its own flags in the fix."""


class UnknownScope(AdminRefused):
    def __init__(self, unknown: list[str], known: list[str]) -> None:
        super().__init__(f"scope {', '.join(unknown)} is unknown; use one of {', '.join(known)}")
        self.unknown, self.known = unknown, known


class UnknownRole(AdminRefused):
    def __init__(self, role: str, known: list[str]) -> None:
        super().__init__(f"role {role!r} is unknown; use one of {', '.join(known)}")
        self.role, self.known = role, known


class NoSuchWorkspace(AdminRefused):
    def __init__(self, workspace_id: str) -> None:
        super().__init__(f"workspace {workspace_id} does not exist")
        self.workspace_id = workspace_id
