"""URL checks the egress tests ask about, in terms of the code's one URL judge."""

from __future__ import annotations

from jsonschema import FormatChecker

from sosoapi.contract.vocabulary import Reason
from sosoapi.egress.policy import judge_url
from sosoapi.egress.settings import EgressSettings

_FORMATS = FormatChecker()


def check_url(url: str, settings: EgressSettings) -> Reason | None:
    """The reason `url` is refused before any lookup, or None when it may be looked up."""
    judged = judge_url(url, settings)
    return judged if isinstance(judged, Reason) else None


def is_valid_uri(url: str) -> bool:
    """True when the contract's "uri" format (jsonschema's checker) accepts `url`."""
    return bool(_FORMATS.conforms(url, "uri"))
