// Engine fuzzing by input family, beside test/engine/properties.test.ts (token
// soup, mutations, cuts): deep nesting, long strings, many keys, many repairs, random bytes read as
// UTF-8. Fixed seed and a bounded budget here; `npm run fuzz` runs the same checks longer.
import fc from 'fast-check';
import t from 'tap';
import { createRandom } from '../../support/random.js';
import { repair } from '../../engine/index.js';
import { brokenInputViolation, measureScaling, prototypeTouched, validInputViolation } from '../../scripts/fuzz-check.js';
import { FAMILIES } from '../../scripts/fuzz-families.js';

// FC_SEED explores other inputs; the default keeps every run identical.
const SEED = Number(process.env.FC_SEED ?? 20240811);
const RUNS = 120;
const MAX_BYTES = 6000;

const sized = fc.tuple(fc.nat(), fc.integer({ min: 1, max: MAX_BYTES }));

for (const family of FAMILIES) {
  t.test(`${family.name}: never throws; a success serializes, re-parses to itself and is idempotent`, async (t) => {
    fc.assert(
      fc.property(sized, ([seed, bytes]) => {
        const text = family.broken(createRandom(seed), bytes);
        const problem = brokenInputViolation(text);
        if (problem !== null) throw new Error(`${problem} (seed ${seed}, ${bytes} bytes): ${JSON.stringify(text.slice(0, 200))}`);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    t.pass(`${RUNS} broken texts of up to ${MAX_BYTES} characters`);
  });

  const valid = family.valid;
  if (valid === null) continue;
  t.test(`${family.name}: valid JSON comes back unchanged and unrepaired`, async (t) => {
    fc.assert(
      fc.property(sized, ([seed, bytes]) => {
        const text = valid(createRandom(seed), bytes);
        const problem = validInputViolation(text);
        if (problem !== null) throw new Error(`${problem} (seed ${seed}, ${bytes} bytes): ${JSON.stringify(text.slice(0, 200))}`);
      }),
      { seed: SEED, numRuns: RUNS / 2 },
    );
    t.pass(`${RUNS / 2} valid documents`);
  });
}

t.test('the generators reach the repair paths: most texts are repaired, not refused', async (t) => {
  // A family whose every text failed would test nothing but the failure path.
  for (const family of FAMILIES) {
    let repaired = 0;
    for (let seed = 0; seed < 30; seed++) {
      const text = family.broken(createRandom(seed), 2000);
      if (repair(text).success) repaired++;
    }
    t.ok(repaired >= 20, `${family.name}: ${repaired}/30 repaired`);
  }
});

t.test('Object.prototype is untouched after every family (keys named __proto__, constructor, prototype)', async (t) => {
  t.equal(prototypeTouched(), null);
  t.equal(({} as Record<string, unknown>)['k'], undefined);
});

// Timing is judged by `npm run fuzz`; here only a bound that a quadratic repair (8x per character
// at 8x the size) would break, with the best of three tries against a busy machine.
t.test('repair time grows about linearly with input size in each family (generous bound)', async (t) => {
  const LIMIT = 5;
  for (const family of FAMILIES) {
    let best = Infinity;
    let detail = '';
    for (let attempt = 0; attempt < 3 && best >= LIMIT; attempt++) {
      const s = measureScaling(family, 1, 32 * 1024, 8, 3);
      if (s.perCharRatio < best) {
        best = s.perCharRatio;
        detail = `${s.smallChars} chars ${s.smallMs.toFixed(2)} ms, ${s.largeChars} chars ${s.largeMs.toFixed(2)} ms`;
      }
    }
    t.ok(best < LIMIT, `${family.name}: time per character at 8x size is ${best.toFixed(2)}x (${detail})`);
  }
});
