"""One POST to the service, with a timeout per attempt, its answer read as the envelope contract,
and retries. What is retried depends on whether repeating the request is safe:

- ``recoverable``: every recoverable failure (RATE_LIMIT_EXCEEDED, SERVICE_UNAVAILABLE, network
  errors, timeouts, a busy proxy) -- for requests that may be repeated (repair, start).
- ``refusals``: only answers proving the request was not acted on (RATE_LIMIT_EXCEEDED,
  SERVICE_UNAVAILABLE) -- for push and finalize, where a lost answer leaves it unknown whether the
  chunk was added; repair_stream recovers those by starting over in a new session.

SESSION_NOT_FOUND is recoverable only by a new session, so the same request is never repeated."""
from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, Optional

from ._retry import RetryPolicy, backoff, server_wait
from ._version import __version__
from .errors import REPAIR_FAILURES, JsonmendError

REFUSALS = frozenset({"RATE_LIMIT_EXCEEDED", "SERVICE_UNAVAILABLE"})
BUSY_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class TransportConfig:
    base_url: str
    api_key: Optional[str]
    timeout: float
    retry: RetryPolicy


def _retryable(error: JsonmendError, retry_on: str) -> bool:
    if not error.recoverable or error.code == "SESSION_NOT_FOUND":
        return False
    return retry_on == "recoverable" or error.code in REFUSALS


def _failure_of(body: Any) -> Optional[Dict[str, Any]]:
    if not isinstance(body, dict) or body.get("success") is not False:
        return None
    errors = (body.get("metadata") or {}).get("errors") or []
    return errors[0] if errors and isinstance(errors[0], dict) else None


def call(config: TransportConfig, path: str, body: Dict[str, Any], *, auth: bool, retry_on: str, result_on_failure: bool) -> Dict[str, Any]:
    retry = config.retry
    attempt = 0
    while True:
        try:
            return _once(config, path, body, auth=auth, result_on_failure=result_on_failure, attempts=attempt + 1)
        except JsonmendError as error:
            if attempt >= retry.max_retries or not _retryable(error, retry_on):
                raise
            hint = error.retry_after
            if hint is not None and hint > retry.max_wait:
                raise
            # The jitter is at most the wait asked for: a push over its push rate waits milliseconds.
            time.sleep(backoff(attempt, retry) if hint is None else hint + min(hint, backoff(0, retry)))
            attempt += 1


def _once(config: TransportConfig, path: str, body: Dict[str, Any], *, auth: bool, result_on_failure: bool, attempts: int) -> Dict[str, Any]:
    url = config.base_url + path
    headers = {"content-type": "application/json", "accept": "application/json", "user-agent": f"jsonmend-python/{__version__}"}
    if auth and config.api_key is not None:
        headers["authorization"] = f"Bearer {config.api_key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
    try:
        try:
            with urllib.request.urlopen(request, timeout=config.timeout) as response:
                status, answer_headers, raw = response.status, response.headers, response.read()
        except urllib.error.HTTPError as answered:  # a non-2xx answer is still an answer
            with answered:
                status, answer_headers, raw = answered.code, answered.headers, answered.read()
    except (socket.timeout, TimeoutError) as cause:
        raise JsonmendError("TIMEOUT", f"No answer from {url} within {config.timeout} s.", recoverable=True, attempts=attempts) from cause
    except urllib.error.URLError as cause:
        if isinstance(cause.reason, (socket.timeout, TimeoutError)):
            raise JsonmendError("TIMEOUT", f"No answer from {url} within {config.timeout} s.", recoverable=True, attempts=attempts) from cause
        raise JsonmendError("NETWORK_ERROR", f"Could not reach {url}: {cause.reason}", recoverable=True, attempts=attempts) from cause
    except (OSError, http.client.HTTPException) as cause:  # a reset connection; a cut or malformed answer
        raise JsonmendError("NETWORK_ERROR", f"Could not reach {url}: {cause!r}", recoverable=True, attempts=attempts) from cause

    request_id = answer_headers.get("x-request-id")
    text = raw.decode("utf-8", errors="replace")
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = None
    failure = _failure_of(parsed)
    if failure is not None:
        if result_on_failure and failure.get("code") in REPAIR_FAILURES:
            return parsed
        code = str(failure.get("code"))
        raise JsonmendError(code, str(failure.get("message", "")), recoverable=failure.get("recoverable") is True,
                            request_id=request_id, status=status, error=failure,
                            retry_after=server_wait(answer_headers, code == "RATE_LIMIT_EXCEEDED"), attempts=attempts)
    if not isinstance(parsed, dict) or not 200 <= status < 300:
        raise JsonmendError("BAD_RESPONSE", f"Unexpected answer from {url} (HTTP {status}): {text[:200]}",
                            recoverable=status in BUSY_STATUSES, request_id=request_id, status=status,
                            retry_after=server_wait(answer_headers, status == 429), attempts=attempts)
    return parsed
