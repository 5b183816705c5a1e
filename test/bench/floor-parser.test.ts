// The bench's floor reference must read its documents exactly as JSON.parse does, or the figure
// it stands for ("what any JavaScript reader costs") would be the cost of a wrong reader.
import t from 'tap';
import { floorParse } from '../../bench/engine/floor-parser.js';
import { generateDocument, llmReply } from '../../bench/engine/inputs.js';

t.test('reads the repaired reply and a generated document as JSON.parse does', async (t) => {
  const reply = llmReply().expected;
  for (const text of [JSON.stringify(reply, null, 2), JSON.stringify(reply), JSON.stringify(generateDocument(50_000), null, 2)]) {
    t.same(floorParse(text), JSON.parse(text));
  }
});

t.test('escapes, empty containers, nesting, numbers and literals', async (t) => {
  for (const text of ['{"a": "x\\"y\\\\z\\u00e9", "b": [], "c": {}, "d": [[1, -2.5e3], {"e": null}], "f": true, "g": false}', '[]', '{}', '"s"', '-0.125', '[{"a": [{}]}]']) {
    t.same(floorParse(text), JSON.parse(text), text);
  }
});
