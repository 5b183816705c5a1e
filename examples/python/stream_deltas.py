"""Streaming a model's output through jsonmend while it is generated: each text delta is pushed as it
arrives, every state says whether what has arrived so far is safe to show, and the end result is the
repair of the whole text. `model()` stands in for an SDK's stream; with OpenAI it would be:

    stream = openai.chat.completions.create(model="gpt-4o-mini", messages=messages, stream=True)
    deltas = (part.choices[0].delta.content for part in stream if part.choices and part.choices[0].delta.content)

    JSONMEND_KEY=sk_live_... python3 stream_deltas.py"""
import json
import os
import time
from types import SimpleNamespace as NS

from jsonmend import Jsonmend

jm = Jsonmend(api_key=os.environ.get("JSONMEND_KEY"), base_url=os.environ.get("JSONMEND_URL", "http://localhost:8080"))


def model():
    """A model's chat-completion chunks, in the OpenAI SDK's shape, a few characters at a time."""
    answer = 'Sure:\n```json\n{"planets": [{"name": "Mercury", "moons": 0}, {"name": "Venus", "moons": 0}, {"name": "Earth", "moons": 1},]}\n```'
    yield NS(choices=[NS(delta=NS(content=None, role="assistant"))])
    for i in range(0, len(answer), 6):
        time.sleep(0.005)
        yield NS(choices=[NS(delta=NS(content=answer[i:i + 6]))])


deltas = (part.choices[0].delta.content for part in model() if part.choices and part.choices[0].delta.content)
states = []


def on_state(state):
    # Every state says how far the text has got: open brackets, whether it parses as it stands (then
    # `partial` is the value and `safe_to_emit` is true), what may come next.
    states.append(state)
    if len(states) % 5 == 0:
        print(f"after {len(states)} chunks: depth {state['brace_depth']}, expecting {' or '.join(state['expected_next'])}")


result = jm.repair_stream(deltas, on_state=on_state,
                          on_restart=lambda r: print(f"session lost ({r.error.code}); replayed {r.replayed_chars} characters"))
print(f"{len(states)} chunks streamed; repaired: {json.dumps(result.repaired)}")
