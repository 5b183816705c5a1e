"""The client: batch repair, the keyless demo, streaming sessions and repair_stream, over HTTP with
the standard library only. Options are checked once, here. See docs/client.md."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, Iterable, List, Optional

from ._retry import RetryPolicy
from ._stream import Stream, feed
from ._transport import TransportConfig, call
from ._types import DemoRepairResult, Mode, PreviewMode, RepairResult, StreamRestart, StreamState

PREVIEW_MODES = ("complete", "progressive", "patch")

def _non_negative(name: str, value: Any, integer: bool = False) -> Any:
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or (not integer and not math.isfinite(value)) or value < 0:
        raise ValueError(f"Jsonmend: {name} must be a non-negative {'integer' if integer else 'number'}; got {value!r}")
    return value


def _repair_body(text: str, schema: Any, mode: Optional[Mode]) -> Dict[str, Any]:
    if not isinstance(text, str):
        raise TypeError("Jsonmend: the text to repair must be a string")
    body: Dict[str, Any] = {"raw_output": text}
    if schema is not None:
        body["schema"] = schema
    if mode is not None:
        body["mode"] = mode
    return body


class Jsonmend:
    """A client for one jsonmend service.

    - ``api_key``: ``sk_live_...``; needed by everything but ``demo_repair``.
    - ``base_url``: default ``http://localhost:8080``.
    - ``timeout``: seconds per attempt (to connect, and for each read), default 30.
    - ``max_retries``: retries of a recoverable failure after the first attempt, default 3; also how
      many new sessions ``repair_stream`` may start in a row.
    - ``retry_base``: the first backoff's upper bound in seconds, default 0.25 (doubling per retry,
      full jitter); ``retry_max_delay``: the largest backoff, default 10.
    - ``max_retry_wait``: a Retry-After longer than this (seconds, default 60) is not waited for:
      the error is raised at once.
    """

    def __init__(self, api_key: Optional[str] = None, base_url: str = "http://localhost:8080", timeout: float = 30.0,
                 max_retries: int = 3, *, retry_base: float = 0.25, retry_max_delay: float = 10.0, max_retry_wait: float = 60.0) -> None:
        if not isinstance(base_url, str):
            raise TypeError("Jsonmend: base_url must be a string")
        if api_key is not None and (not isinstance(api_key, str) or api_key == ""):
            raise TypeError("Jsonmend: api_key must be a non-empty string")
        if _non_negative("timeout", timeout) == 0:
            raise ValueError("Jsonmend: timeout must be positive")
        retry = RetryPolicy(
            max_retries=_non_negative("max_retries", max_retries, integer=True),
            base_delay=_non_negative("retry_base", retry_base),
            max_delay=_non_negative("retry_max_delay", retry_max_delay),
            max_wait=_non_negative("max_retry_wait", max_retry_wait),
        )
        self._config = TransportConfig(base_url=base_url.rstrip("/"), api_key=api_key, timeout=float(timeout), retry=retry)

    def repair(self, text: str, schema: Any = None, mode: Optional[Mode] = None) -> RepairResult:
        """POST /v1/repair. A repair that found no JSON or missed the schema returns ``success`` False."""
        answer = call(self._config, "/v1/repair", _repair_body(text, schema, mode), auth=True, retry_on="recoverable", result_on_failure=True)
        return RepairResult.from_answer(answer)

    def demo_repair(self, text: str, schema: Any = None, mode: Optional[Mode] = None) -> DemoRepairResult:
        """POST /v1/demo/repair: no key, limited per client IP."""
        answer = call(self._config, "/v1/demo/repair", _repair_body(text, schema, mode), auth=False, retry_on="recoverable", result_on_failure=True)
        return DemoRepairResult.from_answer(answer)

    def start_stream(self, schema: Any = None, mode: Optional[Mode] = None, *, echo_buffer: bool = False,
                     preview: Optional[PreviewMode] = None) -> Stream:
        """Opens a streaming session; ``push`` chunks to it, then ``finalize``. States carry
        ``buffered`` (the whole text so far) only with ``echo_buffer=True``. ``preview`` picks how
        states show the value so far: ``"complete"`` (the default), ``"progressive"`` or ``"patch"``
        (``partial_patch`` operations; ``apply_patch`` applies them), docs/streaming.md."""
        if preview is not None and preview not in PREVIEW_MODES:
            raise ValueError(f"Jsonmend: preview must be one of {', '.join(PREVIEW_MODES)}; got {preview!r}")
        body: Dict[str, Any] = {"echo_buffer": echo_buffer is True}
        if schema is not None:
            body["schema"] = schema
        if mode is not None:
            body["mode"] = mode
        if preview is not None:
            body["preview"] = preview
        start = call(self._config, "/v1/repair/stream/start", body, auth=True, retry_on="recoverable", result_on_failure=False)
        return Stream(self._config, start)

    def repair_stream(self, chunks: Iterable[str], schema: Any = None, mode: Optional[Mode] = None, *,
                      on_state: Optional[Callable[[StreamState], Any]] = None,
                      on_restart: Optional[Callable[[StreamRestart], Any]] = None,
                      on_preview: Optional[Callable[[Any, List[str]], Any]] = None) -> RepairResult:
        """Streams ``chunks`` (any iterable of text, such as a generator over a model's deltas) through
        a session: each chunk is pushed as it arrives, ``on_state`` sees every state, and the result is
        the finalized repair -- equal to a batch repair of the whole text. A lost session is replaced
        (at most ``max_retries`` times in a row) and sent the text so far.

        ``on_preview(value, settled)`` is called with the value so far each time it grows (``settled``:
        JSON Pointers of the values that became final), and last with the repaired value and ``[""]``.
        The session then sends patch previews, applied here."""
        if on_preview is not None and not callable(on_preview):
            raise TypeError("Jsonmend: on_preview must be callable")
        preview: Optional[PreviewMode] = None if on_preview is None else "patch"
        return feed(chunks, lambda: self.start_stream(schema, mode, preview=preview), max_restarts=self._config.retry.max_retries,
                    on_state=on_state, on_restart=on_restart, on_preview=on_preview)

    def __repr__(self) -> str:
        return f"Jsonmend(base_url={self._config.base_url!r})"
