"""How long to wait before the next attempt. The service's own hint wins (Retry-After, else
X-RateLimit-Reset for a rate limit); without one, exponential backoff with full jitter: a uniform
draw in [0, min(cap, base * 2**attempt)], so clients refused together do not come back together."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Callable, Optional, Protocol


class Headers(Protocol):
    """Case-insensitive header lookup (http.client's message, or a dict with lower-case names)."""

    def get(self, name: str, default: None = None) -> Optional[str]: ...


@dataclass(frozen=True)
class RetryPolicy:
    #: Retries after the first attempt; 0 turns retrying off.
    max_retries: int
    #: The first backoff's upper bound, seconds.
    base_delay: float
    #: No backoff draw exceeds this, seconds.
    max_delay: float
    #: A service asking for a longer wait than this is not retried: the error is raised at once.
    max_wait: float


def backoff(attempt: int, policy: RetryPolicy, draw: Callable[[], float] = random.random) -> float:
    return draw() * min(policy.max_delay, policy.base_delay * 2 ** attempt)


def server_wait(headers: Headers, rate_limited: bool, now: Optional[float] = None) -> Optional[float]:
    """The wait the answer asks for, in seconds, or None. Retry-After-Ms (a push over its session's
    push rate waits milliseconds) comes first; Retry-After is seconds or an HTTP date.
    Only a rate-limit refusal falls back to X-RateLimit-Reset (unix seconds): every limited answer
    carries it, and it says when the whole limit is back, which is no reason to wait on a full queue."""
    now = time.time() if now is None else now
    try:
        retry_after_ms = float(headers.get("retry-after-ms") or "nan")
    except ValueError:
        retry_after_ms = float("nan")
    if retry_after_ms >= 0:  # NaN compares false
        return retry_after_ms / 1000
    retry_after = (headers.get("retry-after") or "").strip()
    if retry_after:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            pass
        try:
            return max(0.0, parsedate_to_datetime(retry_after).timestamp() - now)
        except (TypeError, ValueError):
            pass
    if not rate_limited:
        return None
    try:
        reset = float(headers.get("x-ratelimit-reset") or "nan")
    except ValueError:
        return None
    return max(0.0, reset - now) if reset > 0 else None
