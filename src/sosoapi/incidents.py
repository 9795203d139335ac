"""Unexpected failures: logged under an incident id, answered with only that id.

A caller never sees exception text (it can carry internals or another caller's values);
the operator finds the incident id in the log with the stack, whose frames name code,
not argument values (the exception's message is left out for the same reason).
"""

from __future__ import annotations

import logging
import sys
import traceback
import uuid

from sosoapi.contract.errors import ErrorCode, ServiceError


def incident(log: logging.Logger, context: str) -> ServiceError:
    """Log the exception being handled as a new incident; the error to answer with."""
    incident_id = uuid.uuid4().hex
    kind, _, tb = sys.exc_info()
    frames = "".join(traceback.format_tb(tb)) if tb else ""
    log.error(
        "internal error incident=%s %s type=%s stack=%r",
        incident_id,
        context,
        kind.__name__ if kind else "unknown",
        frames,
    )
    return ServiceError(
        ErrorCode.INTERNAL,
        f"An internal error occurred (incident {incident_id}); it is logged for the "
        "operator. Retry later, or report the incident id if it persists.",
        incident_id=incident_id,
    )
