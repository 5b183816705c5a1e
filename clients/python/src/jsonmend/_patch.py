"""Applies a patch preview (docs/streaming.md "Preview modes"): JSON Patch (RFC 6902) ``add`` and
``replace``, plus ``append``, which adds text to the end of the string at ``path``. The service sends
a container once, in the push that first shows it, and only its new members afterwards, so a client
that applies every state's ``partial_patch`` in order holds the progressive preview at each step.
A value handed out never changes afterwards: each call copies the containers on the way to what it
changes (their member lists; the members are shared), so a caller may keep every preview.
An ``append`` without a ``path`` continues the string the session's previous operation named,
possibly in an earlier state: ``PreviewPatcher`` remembers that path across states (Python's dicts
and lists cannot be weakly referenced, so unlike the TypeScript client's ``applyPatch`` the plain
function cannot remember it for the value it returns)."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Set, Tuple


def _unescape(token: str) -> str:
    return token if "~" not in token else token.replace("~1", "/").replace("~0", "~")


def _copy(container: Any, fresh: Set[int]) -> Any:
    copy = list(container) if isinstance(container, list) else dict(container)
    fresh.add(id(copy))
    return copy


def _apply(doc: Any, ops: Iterable[Mapping[str, Any]], last_path: Optional[str]) -> Tuple[Any, Optional[str]]:
    # Containers made in this call (copies, values the operations brought) are changed in place;
    # any other is copied first (its member list, its members shared), so a value handed out before
    # never changes. Ids are only compared while every object they name is alive (held by ``doc``).
    fresh: Set[int] = set()
    for op in ops:
        path: Optional[str] = op.get("path", last_path)
        if path is None:
            raise ValueError("patch: an append without a path continues the previous operation's string; "
                             "apply a session's states with one PreviewPatcher")
        last_path = path
        kind: str = op["op"]
        if isinstance(op["value"], (dict, list)):
            fresh.add(id(op["value"]))
        if path == "":
            doc = doc + op["value"] if kind == "append" else op["value"]
            continue
        if not isinstance(doc, (dict, list)):
            raise ValueError(f"patch path {path} does not exist")
        if id(doc) not in fresh:
            doc = _copy(doc, fresh)
        tokens = path.split("/")
        parent = doc
        for token in tokens[1:-1]:
            key: Any = int(token) if isinstance(parent, list) else _unescape(token)
            child = parent[key]
            if not isinstance(child, (dict, list)):
                raise ValueError(f"patch path {path} does not exist")
            if id(child) not in fresh:
                child = parent[key] = _copy(child, fresh)
            parent = child
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
            name = _unescape(last)
            parent[name] = parent[name] + op["value"] if kind == "append" else op["value"]
    return doc, last_path


def apply_patch(doc: Any, ops: Iterable[Mapping[str, Any]]) -> Any:
    """Applies ``ops`` in order to ``doc`` and returns the new document; ``doc`` is left as it was
    (the containers on the way to each change are copied, the rest shared). An ``append`` without a path is resolved within ``ops`` only: for a whole session use
    ``PreviewPatcher``."""
    return _apply(doc, ops, None)[0]


class PreviewPatcher:
    """A session's preview, built from its states' ``partial_patch`` in order; remembers the path a
    path-less ``append`` continues."""

    def __init__(self) -> None:
        self.value: Any = None
        self._last_path: Optional[str] = None

    def apply(self, ops: Iterable[Mapping[str, Any]]) -> Any:
        """Applies one state's operations; returns the preview."""
        self.value, self._last_path = _apply(self.value, ops, self._last_path)
        return self.value
