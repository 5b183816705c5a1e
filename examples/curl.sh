#!/bin/sh
# The HTTP API with curl: a batch repair with a schema, the keyless demo, and a streaming session.
#   JSONMEND_KEY=sk_live_... sh examples/curl.sh        (JSONMEND_URL defaults to http://localhost:8080)
set -eu
URL="${JSONMEND_URL:-http://localhost:8080}"
KEY="${JSONMEND_KEY:?set JSONMEND_KEY to an API key (npm run key -- create)}"
post() { curl -sS --fail-with-body "$URL$1" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d "$2"; echo; }

# A batch repair: prose and a fence around the JSON, an unquoted key, a string where the schema wants an integer.
post /v1/repair '{
  "raw_output": "Sure! ```json\n{name: \"Ada\", \"age\": \"36\", \"langs\": [\"en\",]}\n```",
  "schema": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
             "langs": {"type": "array", "items": {"type": "string"}}}, "required": ["name", "age"]}
}'

# The demo needs no key (10 requests an hour per IP).
curl -sS --fail-with-body "$URL/v1/demo/repair" -H 'Content-Type: application/json' -d '{"raw_output": "{a: 1, b: True,}"}'; echo

# A streaming session: start, push chunks as the model writes them, finalize.
session=$(post /v1/repair/stream/start '{"echo_buffer": false}' | sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p')
post /v1/repair/stream/push "{\"session_id\": \"$session\", \"chunk\": \"{\\\"city\\\": \\\"Par\"}"
post /v1/repair/stream/push "{\"session_id\": \"$session\", \"chunk\": \"is\\\", \\\"sights\\\": [\\\"Louvre\\\"\"}"
post /v1/repair/stream/finalize "{\"session_id\": \"$session\"}"
