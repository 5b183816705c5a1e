"""The one exception the client raises. A repair that ran and failed (no JSON found, the schema not
met) is not an exception: it returns a result with ``success`` False, as the service answers it.
Everything else -- the service refusing or failing the request, or no usable answer -- raises this.

Codes the client adds to the service's own (docs/errors.md):

- ``NETWORK_ERROR``: the connection failed (refused, reset, DNS). Recoverable.
- ``TIMEOUT``: no answer within ``timeout``. Recoverable.
- ``BAD_RESPONSE``: an answer that is not the service's JSON (a proxy's HTML page, a cut body).
  Recoverable when its HTTP status says the server was busy (429, 502, 503, 504).
"""
from __future__ import annotations

from typing import Any, Dict, Optional

#: The failures of a repair that ran: returned as a result (``success`` False), never raised.
REPAIR_FAILURES = frozenset({"UNRECOVERABLE_SYNTAX_ERROR", "SCHEMA_VALIDATION_FAILED"})


class JsonmendError(Exception):
    """``code``, ``recoverable``, ``request_id`` (the answer's X-Request-ID, quote it when reporting a
    problem), ``status`` (HTTP), ``error`` (the service's error object: severity, suggestion, field),
    ``retry_after`` (seconds the service asked the caller to wait) and ``attempts`` (retries included)."""

    def __init__(self, code: str, message: str, *, recoverable: bool, request_id: Optional[str] = None,
                 status: Optional[int] = None, error: Optional[Dict[str, Any]] = None,
                 retry_after: Optional[float] = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.recoverable = recoverable
        self.request_id = request_id
        self.status = status
        self.error = error
        self.retry_after = retry_after
        self.attempts = attempts

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"JsonmendError(code={self.code!r}, recoverable={self.recoverable}, status={self.status}, request_id={self.request_id!r})"
