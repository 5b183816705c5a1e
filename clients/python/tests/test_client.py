"""The Python client against the real service (JSONMEND_URL, JSONMEND_KEY: a key with no rate limit;
JSONMEND_TTL_URL: the same service with a short SESSION_TTL_MS). `npm test` starts them
(test/client/python.test.ts); by hand: start a server, then
`JSONMEND_URL=... JSONMEND_KEY=... JSONMEND_TTL_URL=... python3 -m unittest discover -s tests`."""
from __future__ import annotations

import json
import os
import time
import unittest
from email.utils import formatdate
from typing import Iterator, List

import jsonmend
from jsonmend import Jsonmend, JsonmendError, RepairResult, StreamRestart, StreamState
from jsonmend._retry import RetryPolicy, backoff, server_wait

from .fault_proxy import FaultProxy, busy, envelope_error

URL = os.environ["JSONMEND_URL"]
KEY = os.environ["JSONMEND_KEY"]
TTL_URL = os.environ["JSONMEND_TTL_URL"]

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]}
REPLY = 'Result:\n```json\n{"users": [{"name": "Ada", "langs": ["en", "fr"]}, {"name": "Grace", active: True}], "count": 2,\n```'
REPAIRED = {"users": [{"name": "Ada", "langs": ["en", "fr"]}, {"name": "Grace", "active": True}], "count": 2}


def chunks_of(text: str, size: int) -> List[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


class Batch(unittest.TestCase):
    jm = Jsonmend(api_key=KEY, base_url=URL, max_retries=0)

    def test_repair_with_a_schema(self) -> None:
        result = self.jm.repair('Sure!\n```json\n{name: "Ada", age: "36", extra: 1,\n```', schema=PERSON)
        self.assertIsInstance(result, RepairResult)
        self.assertTrue(result.success)
        self.assertEqual(result.repaired, {"name": "Ada", "age": 36})
        self.assertEqual(result.metadata["confidence"], "medium")
        kinds = {r["type"] for r in result.metadata["repairs_applied"]}
        self.assertIn("quoted_unquoted_keys", kinds)
        self.assertTrue(any(r.get("field") == "/age" for r in result.metadata["schema_repairs"]))

    def test_lenient_mode_keeps_undeclared_members(self) -> None:
        result = self.jm.repair('{name: "Ada", age: 36, extra: 1}', schema=PERSON, mode="lenient")
        self.assertEqual(result.repaired, {"name": "Ada", "age": 36, "extra": 1})

    def test_a_repair_that_ran_and_failed_is_a_result(self) -> None:
        no_json = self.jm.repair("I cannot help with that.")
        self.assertFalse(no_json.success)
        self.assertIsNone(no_json.repaired)
        self.assertEqual(no_json.metadata["errors"][0]["code"], "UNRECOVERABLE_SYNTAX_ERROR")
        missed = self.jm.repair('{"name": "Ada"}', schema=PERSON)
        self.assertFalse(missed.success)
        self.assertEqual(missed.metadata["errors"][0]["code"], "SCHEMA_VALIDATION_FAILED")

    def test_a_refusal_raises(self) -> None:
        with self.assertRaises(JsonmendError) as caught:
            Jsonmend(api_key="sk_live_not_a_key", base_url=URL, max_retries=3).repair("{}")
        error = caught.exception
        self.assertEqual(error.code, "INVALID_API_KEY")
        self.assertFalse(error.recoverable)
        self.assertEqual(error.attempts, 1, "never retried")
        self.assertIsNotNone(error.request_id)
        self.assertEqual(error.error["code"], "INVALID_API_KEY")

    def test_a_bad_request_raises(self) -> None:
        with self.assertRaises(JsonmendError) as caught:
            self.jm.repair("{}", mode="sloppy")  # type: ignore[arg-type]
        self.assertEqual(caught.exception.code, "INVALID_REQUEST")

    def test_demo_repair_needs_no_key(self) -> None:
        result = Jsonmend(base_url=URL, max_retries=0).demo_repair("{a: 1,}")
        self.assertTrue(result.success)
        self.assertEqual(result.repaired, {"a": 1})
        self.assertTrue(result.demo)

    def test_no_server_is_a_recoverable_network_error(self) -> None:
        proxy = FaultProxy(URL)
        dead = proxy.url
        proxy.close()
        with self.assertRaises(JsonmendError) as caught:
            Jsonmend(api_key=KEY, base_url=dead, max_retries=1, retry_base=0.01).repair("{}")
        self.assertEqual(caught.exception.code, "NETWORK_ERROR")
        self.assertTrue(caught.exception.recoverable)
        self.assertEqual(caught.exception.attempts, 2, "retried once")

    def test_options_are_checked_once(self) -> None:
        with self.assertRaises(ValueError):
            Jsonmend(max_retries=-1)
        with self.assertRaises(ValueError):
            Jsonmend(max_retries=1.5)  # type: ignore[arg-type]
        with self.assertRaises(ValueError):
            Jsonmend(timeout=0)
        with self.assertRaises(TypeError):
            Jsonmend(api_key="")
        with self.assertRaises(TypeError):
            self.jm.repair(b"{}")  # type: ignore[arg-type]


class Retries(unittest.TestCase):
    def setUp(self) -> None:
        self.proxy = FaultProxy(URL)
        self.addCleanup(self.proxy.close)

    def client(self, **options: object) -> Jsonmend:
        return Jsonmend(api_key=KEY, base_url=self.proxy.url, retry_base=0.01, **options)  # type: ignore[arg-type]

    def test_a_busy_proxy_is_retried_then_answered(self) -> None:
        self.proxy.plan("/v1/repair", busy(), busy("0"))
        result = self.client(max_retries=2).repair("{a: 1}")
        self.assertEqual(result.repaired, {"a": 1})
        self.assertEqual(self.proxy.count("/v1/repair"), 3)

    def test_retries_stop_at_max_retries(self) -> None:
        self.proxy.plan("/v1/repair", busy(), busy(), busy())
        with self.assertRaises(JsonmendError) as caught:
            self.client(max_retries=1).repair("{a: 1}")
        self.assertEqual((caught.exception.code, caught.exception.status, caught.exception.attempts), ("BAD_RESPONSE", 503, 2))
        self.assertTrue(caught.exception.recoverable)

    def test_retry_after_is_waited_for(self) -> None:
        self.proxy.plan("/v1/repair", envelope_error("RATE_LIMIT_EXCEEDED", True, {"retry-after": "1"}))
        started = time.monotonic()
        result = self.client(max_retries=1).repair("{a: 1}")
        self.assertTrue(result.success)
        self.assertGreaterEqual(time.monotonic() - started, 1.0)

    def test_a_wait_longer_than_max_retry_wait_raises_at_once(self) -> None:
        self.proxy.plan("/v1/repair", envelope_error("RATE_LIMIT_EXCEEDED", True, {"retry-after": "30"}))
        with self.assertRaises(JsonmendError) as caught:
            self.client(max_retries=3, max_retry_wait=5).repair("{a: 1}")
        self.assertEqual(caught.exception.code, "RATE_LIMIT_EXCEEDED")
        self.assertEqual(caught.exception.retry_after, 30)
        self.assertEqual(caught.exception.attempts, 1)
        self.assertEqual(caught.exception.request_id, "proxy-req-1")

    def test_a_slow_answer_times_out(self) -> None:
        self.proxy.plan("/v1/repair", ("delay", 1.5))
        with self.assertRaises(JsonmendError) as caught:
            self.client(max_retries=0, timeout=0.3).repair("{a: 1}")
        self.assertEqual(caught.exception.code, "TIMEOUT")
        self.assertTrue(caught.exception.recoverable)

    def test_a_push_whose_answer_was_lost_is_not_sent_again(self) -> None:
        stream = self.client(max_retries=3).start_stream()
        self.proxy.plan("/v1/repair/stream/push", ("forward-then-drop",))
        with self.assertRaises(JsonmendError) as caught:
            stream.push('{"a": ')
        self.assertEqual((caught.exception.code, caught.exception.attempts), ("NETWORK_ERROR", 1))
        self.assertEqual(self.proxy.count("/v1/repair/stream/push"), 1)

    def test_a_refused_push_is_retried(self) -> None:
        stream = self.client(max_retries=2).start_stream()
        self.proxy.plan("/v1/repair/stream/push", envelope_error("SERVICE_UNAVAILABLE", True))
        state = stream.push('{"a": 1}')
        self.assertTrue(state["json_parseable"])
        self.assertEqual(self.proxy.count("/v1/repair/stream/push"), 2)


class Streaming(unittest.TestCase):
    jm = Jsonmend(api_key=KEY, base_url=URL, max_retries=0)

    def test_push_and_finalize_equal_batch_repair(self) -> None:
        stream = self.jm.start_stream(schema=PERSON, mode="lenient")
        self.assertTrue(stream.id)
        self.assertGreater(stream.expires_at, time.time() * 1000)
        first = stream.push('{"name": "Ada", "ag')
        self.assertFalse(first["structurally_complete"])
        self.assertNotIn("buffered", first)
        stream.push('e": "36", "x": 1}')
        result = stream.finalize()
        self.assertEqual(result, self.jm.repair('{"name": "Ada", "age": "36", "x": 1}', schema=PERSON, mode="lenient"))
        self.assertEqual(result.repaired, {"name": "Ada", "age": 36, "x": 1})

    def test_echo_buffer(self) -> None:
        stream = self.jm.start_stream(echo_buffer=True)
        stream.push("[1, ")
        self.assertEqual(stream.push("2")["buffered"], "[1, 2")

    def test_repair_stream_over_a_generator(self) -> None:
        chunks = chunks_of(REPLY, 9)

        def deltas() -> Iterator[str]:
            yield ""  # empty deltas (a role-only first chunk) are skipped
            yield from chunks

        states: List[StreamState] = []
        result = self.jm.repair_stream(deltas(), mode="lenient", on_state=states.append)
        self.assertEqual(len(states), len(chunks))
        self.assertTrue(states[-1]["json_parseable"] or not states[-1]["structurally_complete"])
        self.assertEqual(result.repaired, REPAIRED)
        self.assertEqual(result, self.jm.repair(REPLY, mode="lenient"))

    def test_repair_stream_reads_text_only(self) -> None:
        with self.assertRaises(TypeError):
            self.jm.repair_stream([b"{}"])  # type: ignore[list-item]

    def test_a_session_that_expires_while_the_model_pauses_is_replayed(self) -> None:
        jm = Jsonmend(api_key=KEY, base_url=TTL_URL)
        chunks = chunks_of(REPLY, 20)

        def pausing() -> Iterator[str]:
            for i, chunk in enumerate(chunks):
                if i in (2, 4):
                    time.sleep(0.6)  # several TTLs: the session is swept
                yield chunk

        restarts: List[StreamRestart] = []
        result = jm.repair_stream(pausing(), mode="lenient", on_restart=restarts.append)
        self.assertEqual([r.error.code for r in restarts], ["SESSION_NOT_FOUND", "SESSION_NOT_FOUND"])
        self.assertEqual([r.replayed_chars for r in restarts], [len("".join(chunks[:3])), len("".join(chunks[:5]))])
        self.assertNotEqual(restarts[0].session_id, restarts[0].lost_session_id)
        self.assertEqual(result, jm.repair(REPLY, mode="lenient"))

    def test_a_push_whose_answer_was_lost_continues_in_a_new_session(self) -> None:
        proxy = FaultProxy(URL)
        self.addCleanup(proxy.close)
        jm = Jsonmend(api_key=KEY, base_url=proxy.url, retry_base=0.01)
        # The third push reaches the server (the chunk is added) but its answer is lost.
        proxy.plan("/v1/repair/stream/push", ("forward",), ("forward",), ("forward-then-drop",))
        restarts: List[StreamRestart] = []
        chunks = chunks_of(REPLY, 15)
        result = jm.repair_stream(iter(chunks), on_restart=restarts.append)
        self.assertEqual(len(restarts), 1)
        self.assertEqual(restarts[0].error.code, "NETWORK_ERROR")
        self.assertEqual(restarts[0].replayed_chars, len("".join(chunks[:3])))
        self.assertEqual(result, jm.repair(REPLY), "no chunk counted twice")

    def test_losses_beyond_max_retries_raise(self) -> None:
        proxy = FaultProxy(URL)
        self.addCleanup(proxy.close)
        jm = Jsonmend(api_key=KEY, base_url=proxy.url, max_retries=1, retry_base=0.01)
        proxy.plan("/v1/repair/stream/push", ("drop",), ("drop",))
        with self.assertRaises(JsonmendError) as caught:
            jm.repair_stream(["{", '"a": 1}'])
        self.assertEqual(caught.exception.code, "NETWORK_ERROR")


class Previews(unittest.TestCase):
    jm = Jsonmend(api_key=KEY, base_url=URL, max_retries=0)

    def test_start_stream_asks_for_a_preview_mode(self) -> None:
        progressive = self.jm.start_stream(preview="progressive")
        state = progressive.push('{"a": [1, 2], "b": "te')
        self.assertEqual(state["partial"], {"a": [1, 2], "b": "te"})
        self.assertIn("/a", state["settled"])
        patch = self.jm.start_stream(preview="patch")
        first = patch.push('{"a": [1, 2], "b": "te')
        self.assertEqual(first["partial_patch"][0]["path"], "")
        second = patch.push('xt"}')
        self.assertEqual(jsonmend.apply_patch(jsonmend.apply_patch(None, first["partial_patch"]), second["partial_patch"]),
                         {"a": [1, 2], "b": "text"})
        with self.assertRaises(ValueError):
            self.jm.start_stream(preview="everything")  # type: ignore[arg-type]

    def test_on_preview_sees_the_value_grow_then_the_repaired_value(self) -> None:
        previews: List[object] = []
        settled: List[List[str]] = []
        handed: List[object] = []

        def on_preview(value: object, done: List[str]) -> None:
            previews.append(json.loads(json.dumps(value)))
            handed.append(value)  # no copy: a value handed out never changes afterwards
            settled.append(done)

        chunks = chunks_of(REPLY, 7)
        result = self.jm.repair_stream(iter(chunks), mode="lenient", on_preview=on_preview)
        self.assertEqual(result, self.jm.repair(REPLY, mode="lenient"))
        self.assertEqual(handed, previews, "every preview is as it was when it was handed out")
        self.assertGreater(len(previews), 3, "the preview grew step by step")
        self.assertEqual(previews[-1], REPAIRED)
        self.assertEqual(settled[-1], [""])
        self.assertIn({"users": [{"name": "Ada"}]}, previews, "a partial value was shown before the end")
        # Each preview matches the progressive preview the service shows for the same text.
        stream = self.jm.start_stream(mode="lenient", preview="progressive")
        progressive = [stream.push(chunk)["partial"] for chunk in chunks]
        for value in previews[:-1]:
            self.assertIn(value, progressive)
        with self.assertRaises(TypeError):
            self.jm.repair_stream(["{}"], on_preview="print")  # type: ignore[arg-type]

    def test_previews_survive_a_lost_session(self) -> None:
        jm = Jsonmend(api_key=KEY, base_url=TTL_URL)
        chunks = chunks_of(REPLY, 20)

        def pausing() -> Iterator[str]:
            for i, chunk in enumerate(chunks):
                if i == 3:
                    time.sleep(0.6)  # several TTLs: the session is swept
                yield chunk

        previews: List[object] = []
        restarts: List[StreamRestart] = []
        result = jm.repair_stream(pausing(), mode="lenient", on_restart=restarts.append,
                                  on_preview=lambda value, _settled: previews.append(json.loads(json.dumps(value))))
        self.assertEqual(len(restarts), 1)
        self.assertEqual(previews[-1], REPAIRED)
        self.assertEqual(result, jm.repair(REPLY, mode="lenient"))
        whole = Jsonmend(api_key=KEY, base_url=URL).start_stream(mode="lenient", preview="progressive")
        self.assertIn(previews[-2], [whole.push(chunk)["partial"] for chunk in chunks], "the replayed session's preview is the whole text's")

    def test_a_deep_string_streamed_a_character_at_a_time_costs_its_text(self) -> None:
        depth = 100
        reply = "[" * depth + '"' + "x" * 150 + '"' + "]" * depth
        stream = self.jm.start_stream(mode="lenient", preview="patch")
        patcher = jsonmend.PreviewPatcher()
        late = 0
        for k in range(0, len(reply)):
            ops = stream.push(reply[k])["partial_patch"]
            patcher.apply(ops)
            if depth + 2 < k < depth + 150:
                late += len(json.dumps(ops))
        self.assertLess(late, 150 * 40, "each one-character push into the string costs a few bytes, not its path")
        self.assertEqual(patcher.value, stream.finalize().repaired)


class ApplyPatch(unittest.TestCase):
    def test_the_three_operations(self) -> None:
        doc = jsonmend.apply_patch(None, [{"op": "add", "path": "", "value": {"a/b": [], "m~n": "x"}}])
        doc = jsonmend.apply_patch(doc, [
            {"op": "add", "path": "/a~1b/-", "value": 1},
            {"op": "add", "path": "/a~1b/0", "value": 0},
            {"op": "append", "path": "/m~0n", "value": "yz"},
            {"op": "replace", "path": "/a~1b/1", "value": 2},
            {"op": "add", "path": "/s", "value": ["q"]},
            {"op": "append", "path": "/s/0", "value": "r"},
        ])
        self.assertEqual(doc, {"a/b": [0, 2], "m~n": "xyz", "s": ["qr"]})
        self.assertEqual(jsonmend.apply_patch("ab", [{"op": "append", "path": "", "value": "c"}]), "abc")
        with self.assertRaises(ValueError):
            jsonmend.apply_patch({"a": 1}, [{"op": "add", "path": "/a/b", "value": 2}])

    def test_an_append_without_a_path_continues_the_previous_operations_string(self) -> None:
        patcher = jsonmend.PreviewPatcher()
        patcher.apply([{"op": "add", "path": "", "value": {"a": [{"b": ""}]}}, {"op": "append", "path": "/a/0/b", "value": "x"}])
        patcher.apply([{"op": "append", "value": "y"}])
        self.assertEqual(patcher.apply([{"op": "append", "value": "z"}, {"op": "add", "path": "/c", "value": "q"},
                                        {"op": "append", "value": "r"}]), {"a": [{"b": "xyz"}], "c": "qr"})
        # Within one list the plain function resolves it too; across states it cannot, and says so.
        self.assertEqual(jsonmend.apply_patch({"s": ""}, [{"op": "append", "path": "/s", "value": "a"}, {"op": "append", "value": "b"}]),
                         {"s": "ab"})
        with self.assertRaises(ValueError):
            jsonmend.apply_patch({"s": "a"}, [{"op": "append", "value": "b"}])

class RetryArithmetic(unittest.TestCase):
    policy = RetryPolicy(max_retries=3, base_delay=0.25, max_delay=10.0, max_wait=60.0)

    def test_full_jitter_backoff_is_capped(self) -> None:
        self.assertEqual(backoff(0, self.policy, lambda: 1.0), 0.25)
        self.assertEqual(backoff(3, self.policy, lambda: 0.5), 1.0)
        self.assertEqual(backoff(10, self.policy, lambda: 1.0), 10.0)
        self.assertEqual(backoff(2, self.policy, lambda: 0.0), 0.0)

    def test_server_wait(self) -> None:
        now = 1_700_000_000.0
        self.assertEqual(server_wait({"retry-after": "7"}, False, now), 7.0)
        self.assertAlmostEqual(server_wait({"retry-after": formatdate(now + 12, usegmt=True)}, False, now) or 0, 12.0, places=0)
        self.assertEqual(server_wait({"x-ratelimit-reset": str(int(now + 20))}, True, now), 20.0)
        self.assertIsNone(server_wait({"x-ratelimit-reset": str(int(now + 20))}, False, now), "a full queue is not a rate limit")
        self.assertIsNone(server_wait({}, True, now))
        self.assertEqual(server_wait({"retry-after": "1", "retry-after-ms": "12"}, True, now), 0.012, "Retry-After-Ms wins")


class Package(unittest.TestCase):
    def test_typed_and_versioned(self) -> None:
        root = os.path.dirname(jsonmend.__file__)
        self.assertTrue(os.path.exists(os.path.join(root, "py.typed")))
        expected = os.environ.get("JSONMEND_VERSION")
        if expected is not None:
            self.assertEqual(jsonmend.__version__, expected)


if __name__ == "__main__":
    unittest.main()
