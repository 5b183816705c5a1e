"""A streaming session (start, push, finalize) and repair_stream, which feeds one from an iterable of
text and survives losing it: a session that expired while the model paused, or whose server went
away, is replaced by a new one that is sent everything pushed so far, in one push. The final result
is then the batch repair of the whole text, as if nothing had happened."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, TypeVar

from ._patch import PreviewPatcher

from ._transport import TransportConfig, call
from ._types import RepairResult, StreamRestart, StreamState
from .errors import JsonmendError

T = TypeVar("T")


class Stream:
    """An open session: ``push`` chunks, then ``finalize``."""

    def __init__(self, config: TransportConfig, start: Dict[str, Any]) -> None:
        self._config = config
        #: The session id the service issued.
        self.id: str = start["session_id"]
        #: Unix ms when the session expires unless a push renews it (each push does).
        self.expires_at: int = start["expires_at"]

    def push(self, chunk: str) -> StreamState:
        """Adds a chunk; returns the state of everything pushed so far."""
        if not isinstance(chunk, str):
            raise TypeError(f"push takes text; got {type(chunk).__name__} (decode bytes first)")
        answer = call(self._config, "/v1/repair/stream/push", {"session_id": self.id, "chunk": chunk},
                      auth=True, retry_on="refusals", result_on_failure=False)
        state: StreamState = answer["state"]
        return state

    def finalize(self) -> RepairResult:
        """Repairs the whole buffer and ends the session: the answer batch repair gives for that text."""
        answer = call(self._config, "/v1/repair/stream/finalize", {"session_id": self.id},
                      auth=True, retry_on="refusals", result_on_failure=True)
        return RepairResult.from_answer(answer)

    def __repr__(self) -> str:
        return f"Stream(id={self.id!r}, expires_at={self.expires_at})"


def is_session_loss(error: BaseException) -> bool:
    """The session, or whether it kept the last request, is lost: only a new session can go on."""
    if not isinstance(error, JsonmendError):
        return False
    return error.code in ("SESSION_NOT_FOUND", "NETWORK_ERROR", "TIMEOUT") or (error.code == "BAD_RESPONSE" and error.recoverable)


def feed(chunks: Iterable[str], open_session: Callable[[], Stream], *, max_restarts: int,
         on_state: Optional[Callable[[StreamState], Any]] = None,
         on_restart: Optional[Callable[[StreamRestart], Any]] = None,
         on_preview: Optional[Callable[[Any, List[str]], Any]] = None) -> RepairResult:
    """Pushes each chunk as it arrives, then finalizes; ``open_session`` starts a session (again after a loss)."""
    session = open_session()
    text_parts = []
    text_length = 0
    # The preview the patches built so far (on_preview), and the path a path-less append continues.
    patcher = PreviewPatcher()
    # True after a restart: the new session holds nothing yet, so the next request first sends the text so far.
    replay = False

    def recovering(operation: Callable[[], T]) -> T:
        nonlocal session, replay
        restarts = 0
        while True:
            try:
                return operation()
            except JsonmendError as error:
                if not is_session_loss(error) or restarts >= max_restarts:
                    raise
                lost = session.id
                session = open_session()
                replay = True
                restarts += 1
                if on_restart is not None:
                    on_restart(StreamRestart(error=error, lost_session_id=lost, session_id=session.id, replayed_chars=text_length))

    def push(chunk: str) -> StreamState:
        nonlocal replay
        state = session.push("".join(text_parts) if replay else chunk)
        replay = False
        return state

    def finish() -> RepairResult:
        nonlocal replay
        if replay and text_length > 0:
            session.push("".join(text_parts))
        replay = False
        return session.finalize()

    for chunk in chunks:
        if not isinstance(chunk, str):
            raise TypeError(f"repair_stream reads text; got {type(chunk).__name__} (decode bytes first)")
        if chunk == "":
            continue
        text_parts.append(chunk)
        text_length += len(chunk)
        state = recovering(lambda: push(chunk))
        if on_state is not None:
            on_state(state)
        if on_preview is not None and "partial_patch" in state:
            # A replacement session's first patch adds the whole preview again (path ""): no reset needed.
            settled = state.get("settled", [])
            if state["partial_patch"]:
                patcher.apply(state["partial_patch"])
            if state["partial_patch"] or settled:
                on_preview(patcher.value, settled)
    result = recovering(finish)
    # The last preview is the repaired value: all of it final.
    if on_preview is not None and result.success:
        on_preview(result.repaired, [""])
    return result
