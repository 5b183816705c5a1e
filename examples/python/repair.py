"""A batch repair from Python (pip install jsonmend; standard library only).
    JSONMEND_KEY=sk_live_... python3 repair.py        (JSONMEND_URL defaults to http://localhost:8080)"""
import json
import os
import sys

from jsonmend import Jsonmend, JsonmendError

jm = Jsonmend(api_key=os.environ.get("JSONMEND_KEY"), base_url=os.environ.get("JSONMEND_URL", "http://localhost:8080"))

# What a model often answers: prose, a markdown fence, single quotes, a trailing comma, Python's True.
reply = "Here you go:\n```json\n{'name': 'Ada Lovelace', 'born': 1815, 'fields': ['mathematics', 'computing',], 'notable': True}\n```"

try:
    result = jm.repair(reply)
except JsonmendError as error:
    sys.exit(f"jsonmend {error.code} (request {error.request_id}): {error.message}")

if result.success:
    print(json.dumps(result.repaired))
    print(f"confidence: {result.metadata['confidence']}")
    for r in result.metadata["repairs_applied"]:
        print(f"- {r['type']} ({r['confidence']}) at {r.get('position')}")
else:
    print(f"not repairable: {result.metadata['errors'][0]['code']}")
