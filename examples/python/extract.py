"""Schema extraction: a model was asked for an invoice as JSON; the schema makes jsonmend coerce values
to the declared types ("42.50" -> 42.5), drop members the schema does not declare (strict mode), and
fail clearly when a required field is missing.
    JSONMEND_KEY=sk_live_... python3 extract.py"""
import json
import os

from jsonmend import Jsonmend

jm = Jsonmend(api_key=os.environ.get("JSONMEND_KEY"), base_url=os.environ.get("JSONMEND_URL", "http://localhost:8080"))

invoice = {
    "type": "object",
    "properties": {
        "number": {"type": "string"},
        "total": {"type": "number"},
        "paid": {"type": "boolean"},
        "lines": {"type": "array", "items": {"type": "object", "properties": {"item": {"type": "string"}, "qty": {"type": "integer"}},
                                             "required": ["item", "qty"]}},
    },
    "required": ["number", "total", "lines"],
}

reply = """The invoice, extracted:
{number: 'INV-7', total: "42.50", paid: "false", note: "ignore me",
 lines: [{item: "pens", qty: "3"}, {item: "paper", qty: 2},]}"""

result = jm.repair(reply, schema=invoice)
print(json.dumps(result.repaired))
for r in result.metadata["schema_repairs"]:
    now = json.dumps(r["repaired_value"]) if "repaired_value" in r else "(removed)"
    print(f"- {r['type']} {r.get('field')}: {json.dumps(r.get('original_value'))} -> {now}")

missing = jm.repair('{"number": "INV-8"}', schema=invoice)
print(f"without total and lines: success={str(missing.success).lower()}, {missing.metadata['errors'][0]['code']}")
