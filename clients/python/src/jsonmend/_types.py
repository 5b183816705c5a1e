"""The shapes the service answers with (the envelope contract, docs/http-api.md), as typed dicts,
and the result objects the client returns."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, TypedDict

Confidence = Literal["high", "medium", "low"]
ResponseConfidence = Literal["high", "medium", "low", "n/a"]
Mode = Literal["strict", "lenient"]
#: How a stream's states show the value so far (docs/streaming.md "Preview modes").
PreviewMode = Literal["complete", "progressive", "patch"]


class _RepairDetailRequired(TypedDict):
    type: str
    confidence: Confidence
    safe: bool


class RepairDetail(_RepairDetailRequired, total=False):
    """One change: a syntax repair has `position` and `count`, a schema repair `field` and the values."""

    position: int
    count: int
    field: str
    original_value: Any
    repaired_value: Any


class _WarningRequired(TypedDict):
    code: str
    message: str
    severity: Literal["low", "medium", "high"]


class Warning(_WarningRequired, total=False):
    field: str
    suggestion: str
    position: int


class _RepairErrorRequired(TypedDict):
    code: str
    message: str
    severity: Literal["critical", "high", "medium"]
    recoverable: bool


class RepairError(_RepairErrorRequired, total=False):
    field: str
    suggestion: str
    compact_code: str


class RepairMetadata(TypedDict):
    confidence: ResponseConfidence
    was_repaired: bool
    output_valid_json: bool
    syntax_repairs: List[RepairDetail]
    schema_repairs: List[RepairDetail]
    repairs_applied: List[RepairDetail]
    warnings: List[Warning]
    errors: List[RepairError]


class _PatchOperationRequired(TypedDict):
    op: Literal["add", "replace", "append"]
    value: Any


class PatchOperation(_PatchOperationRequired, total=False):
    """One step from a preview to the next: JSON Patch ``add`` / ``replace``, or ``append`` (text to
    the end of the string at ``path``). ``path`` is a JSON Pointer; ``""`` is the whole preview. An
    ``append`` leaves ``path`` out when it continues the string the session's previous operation
    named (``PreviewPatcher`` keeps track)."""

    path: str


class _StreamStateRequired(TypedDict):
    structurally_complete: bool
    json_parseable: bool
    safe_to_emit: bool
    partial: Any
    incomplete_token: str
    brace_depth: int
    in_string: bool
    expected_next: List[str]


class StreamState(_StreamStateRequired, total=False):
    """The state of everything pushed so far; `buffered` only when the session echoes its buffer;
    `partial_patch` (patch previews) and `settled` (progressive and patch previews) by preview mode."""

    buffered: str
    partial_patch: List[PatchOperation]
    settled: List[str]


@dataclass(frozen=True)
class RepairResult:
    """A repair's answer. `success` is False when the text held no JSON or missed the schema; the
    reason is then in `metadata["errors"]`."""

    success: bool
    repaired: Any
    metadata: RepairMetadata
    #: The whole answer as the service sent it.
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def from_answer(answer: Dict[str, Any]) -> "RepairResult":
        return RepairResult(success=answer["success"] is True, repaired=answer.get("repaired"), metadata=answer["metadata"], raw=answer)


@dataclass(frozen=True)
class DemoRepairResult(RepairResult):
    """The demo's answer: a repair plus `demo` and an invitation to sign up (`message`)."""

    demo: bool = True
    message: Optional[str] = None

    @staticmethod
    def from_answer(answer: Dict[str, Any]) -> "DemoRepairResult":
        return DemoRepairResult(success=answer["success"] is True, repaired=answer.get("repaired"), metadata=answer["metadata"],
                                raw=answer, demo=answer.get("demo") is True, message=answer.get("message"))


@dataclass(frozen=True)
class StreamRestart:
    """A lost session replaced by a new one during `repair_stream`."""

    #: Why the session was given up: SESSION_NOT_FOUND, NETWORK_ERROR, TIMEOUT or BAD_RESPONSE.
    error: Any
    lost_session_id: str
    session_id: str
    #: Characters sent again to the new session.
    replayed_chars: int
