"""jsonmend: the Python client for the jsonmend service, which repairs the broken JSON language models
produce and reports every change. Standard library only.

    from jsonmend import Jsonmend
    jm = Jsonmend(api_key="sk_live_...", base_url="http://localhost:8080")
    result = jm.repair('{name: "Ada",}')
    result.success, result.repaired, result.metadata["confidence"]
"""
from ._client import Jsonmend
from ._patch import PreviewPatcher, apply_patch
from ._stream import Stream
from ._types import (Confidence, DemoRepairResult, Mode, PatchOperation, PreviewMode, RepairDetail, RepairError, RepairMetadata,
                     RepairResult, ResponseConfidence, StreamRestart, StreamState, Warning)
from ._version import __version__
from .errors import JsonmendError

__all__ = [
    "Confidence", "DemoRepairResult", "Jsonmend", "JsonmendError", "Mode", "PatchOperation", "PreviewMode", "PreviewPatcher", "RepairDetail",
    "RepairError", "RepairMetadata", "RepairResult", "ResponseConfidence", "Stream", "StreamRestart", "StreamState", "Warning",
    "__version__", "apply_patch",
]
