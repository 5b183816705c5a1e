import t from 'tap';
import { repair } from '../../engine/index.js';
t.test('valid', async (t) => {
  t.same(repair('{"a":1}').repaired, { a: 1 });
});
