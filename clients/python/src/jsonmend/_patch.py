"""Applies a patch preview (docs/streaming.md "Preview modes"): JSON Patch (RFC 6902) ``add`` and
``replace``, plus ``append``, which adds text to the end of the string at ``path``. The service sends
a container once, in the push that first shows it, and only its new members afterwards, so a client
that applies every state's ``partial_patch`` in order holds the progressive preview at each step.
The same dozen lines as the TypeScript client's ``applyPatch``."""
from __future__ import annotations

from typing import Any, Iterable, Mapping


def _unescape(token: str) -> str:
    return token if "~" not in token else token.replace("~1", "/").replace("~0", "~")


def apply_patch(doc: Any, ops: Iterable[Mapping[str, Any]]) -> Any:
    """Applies ``ops`` in order to ``doc`` (changed in place where it is a container); returns the new document."""
    for op in ops:
        path: str = op["path"]
        kind: str = op["op"]
        if path == "":
            doc = doc + op["value"] if kind == "append" else op["value"]
            continue
        tokens = path.split("/")
        parent = doc
        for token in tokens[1:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[_unescape(token)]
        if not isinstance(parent, (dict, list)):
            raise ValueError(f"patch path {path} does not exist")
        last = tokens[-1]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            value = parent[index] + op["value"] if kind == "append" else op["value"]
            if kind == "add" and index < len(parent):
                parent.insert(index, value)
            elif index == len(parent):
                parent.append(value)
            else:
                parent[index] = value
        else:
            key = _unescape(last)
            parent[key] = parent[key] + op["value"] if kind == "append" else op["value"]
    return doc
