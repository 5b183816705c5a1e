"""A loopback HTTP proxy in front of the real service that misbehaves on request, the way networks
and balancers do: it can answer for the service (a busy proxy's 503, a rate limit), drop the
connection before or after forwarding (the answer lost), or answer late. Everything else is
forwarded unchanged."""
from __future__ import annotations

import http.client
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Tuple

# An action for one request: ("forward",), ("answer", status, headers, body), ("drop",),
# ("forward-then-drop",) or ("delay", seconds).
Action = Tuple


class FaultProxy:
    def __init__(self, upstream: str) -> None:
        parsed = urllib.parse.urlsplit(upstream)
        self._upstream = (parsed.hostname or "127.0.0.1", parsed.port or 80)
        #: Per path, the actions for the next requests, in order; a path with none left is forwarded.
        self.plans: Dict[str, List[Action]] = {}
        #: Every request seen: (path, body).
        self.seen: List[Tuple[str, bytes]] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with proxy._lock:
                    proxy.seen.append((self.path, body))
                    plan = proxy.plans.get(self.path) or []
                    action = plan.pop(0) if plan else ("forward",)
                kind = action[0]
                if kind == "drop":
                    self.close_connection = True
                    return
                if kind == "answer":
                    _, status, headers, payload = action
                    self._reply(status, headers, payload)
                    return
                if kind == "delay":
                    time.sleep(action[1])
                status, headers, payload = proxy._forward(self.command, self.path, dict(self.headers), body)
                if kind == "forward-then-drop":
                    self.close_connection = True
                    return
                self._reply(status, headers, payload)

            def _reply(self, status: int, headers: Dict[str, str], payload: bytes) -> None:
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        if name.lower() not in ("content-length", "connection", "transfer-encoding", "date"):
                            self.send_header(name, value)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (a timeout test)
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _forward(self, method: str, path: str, headers: Dict[str, str], body: bytes) -> Tuple[int, Dict[str, str], bytes]:
        connection = http.client.HTTPConnection(*self._upstream, timeout=30)
        try:
            keep = {k: v for k, v in headers.items() if k.lower() not in ("host", "connection", "content-length")}
            connection.request(method, path, body=body, headers=keep)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def plan(self, path: str, *actions: Action) -> None:
        with self._lock:
            self.plans[path] = list(actions)

    def count(self, path: str) -> int:
        with self._lock:
            return sum(1 for p, _ in self.seen if p == path)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def busy(retry_after: Optional[str] = None) -> Action:
    """A balancer's 503 page (not the service's JSON)."""
    headers = {"content-type": "text/html"}
    if retry_after is not None:
        headers["retry-after"] = retry_after
    return ("answer", 503, headers, b"<html><body>503 Service Unavailable</body></html>")


def envelope_error(code: str, recoverable: bool, headers: Optional[Dict[str, str]] = None) -> Action:
    """The service's own refusal in the envelope contract (HTTP 200, success false)."""
    import json
    body = {"success": False, "repaired": None, "metadata": {"confidence": "n/a", "was_repaired": False, "output_valid_json": False,
            "syntax_repairs": [], "schema_repairs": [], "repairs_applied": [], "warnings": [],
            "errors": [{"code": code, "message": f"{code} (from the test proxy)", "severity": "high", "recoverable": recoverable}]}}
    return ("answer", 200, {"content-type": "application/json", "x-request-id": "proxy-req-1", **(headers or {})}, json.dumps(body).encode())


