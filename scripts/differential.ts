// `node dist/scripts/differential.js [--against OTHER/dist/engine/index.js] [--out FILE.jsonl]`:
// every response of the engine on a reproducible corpus, so that two builds can be compared. The
// corpus: the peers' test tables, the realistic replies, every cut of the bench's 1 KB reply, cuts
// of a malformed document and of a document broken one way per malformation family
// (bench/engine/families.ts), and 60,000 seeded random token strings; each input is repaired as one
// batch and also streamed in 3-character pushes (every push's state and the finalize answer).
// Alone it prints the corpus size and one digest of all responses (and writes one line per input
// with --out); with --against it loads a second engine (a copy of another build's dist/) into the
// same process and prints each input the two answer differently. Exit 1 when any differs.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { families } from '../bench/engine/families.js';
import { PEER_CASES_DIR } from '../bench/engine/peer-tables.js';
import { generateDocument, llmReply, malformDocument } from '../bench/engine/inputs.js';
import { createRandom } from '../support/random.js';
import * as ours from '../engine/index.js';

const { values } = parseArgs({
  options: {
    against: { type: 'string' },
    out: { type: 'string' },
    peers: { type: 'string', default: PEER_CASES_DIR },
    random: { type: 'string', default: '60000' },
    limit: { type: 'string', default: '20' },
  },
});

type Engine = Pick<typeof ours, 'repair' | 'createStream'>;

const TOKENS = [
  '{', '}', '[', ']', ',', ':', ' ', '\n', '"a"', '"b"', "'c'", '"', "'", '1', '-2.5', '.5', '1e', '-', '12.',
  'true', 'tru', 'null', 'True', 'None', 'NaN', 'undefined', 'name', 'x y', '// c\n', '/* c */', '#c\n', '...',
  '+', '(', ')', 'f(', '\\', '\\n', '\\u00', '“', '”', '```json\n', '```', '<think>', '</think>', 'Here: ',
  '\t', '=', ';', '*', '0', '007', '5 kg', '$1,234', '\u00a0', '😀', 'é',
];

/** The corpus, in a fixed order: [label, input]. */
function corpus(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const peersDir = resolve(values.peers!);
  if (existsSync(peersDir)) {
    for (const file of ['jsonrepair-3.15.0.json', 'json_repair-py-0.61.7.json', 'json_repair-py-0.61.7-all-options.json']) {
      const cases = JSON.parse(readFileSync(resolve(peersDir, file), 'utf8')) as Array<{ input: string }>;
      cases.forEach((c, k) => out.push([`${file}#${k}`, c.input]));
    }
  } else process.stderr.write(`no peer tables at ${peersDir}: left out\n`);
  const replies = JSON.parse(readFileSync(new URL('../../test/engine/fixtures/model-output.json', import.meta.url), 'utf8')) as Array<{ name: string; input: string }>;
  for (const c of replies) out.push([`reply ${c.name}`, c.input]);
  const reply = llmReply().text;
  for (let n = 1; n <= reply.length; n++) out.push([`reply cut ${n}`, reply.slice(0, n)]);
  const malformed = malformDocument(generateDocument(6 * 1024)).complete.text;
  for (let n = 1; n <= malformed.length; n += 2) out.push([`malformed cut ${n}`, malformed.slice(0, n)]);
  for (const family of families(generateDocument(3 * 1024))) {
    for (let n = 1; n <= family.text.length; n += 5) out.push([`${family.name} cut ${n}`, family.text.slice(0, n)]);
  }
  const random = createRandom(0xd1ff);
  for (let k = 0; k < Number(values.random); k++) {
    let text = '';
    for (let n = 1 + random.int(24); n > 0; n--) text += random.pick(TOKENS);
    out.push([`random ${k}`, text]);
  }
  return out;
}

/** The batch answer and a digest of the streamed states and finalize answer. */
function responses(engine: Engine, input: string): string {
  const batch = JSON.stringify(engine.repair(input));
  const hash = createHash('sha1');
  const stream = engine.createStream({ echoBuffer: false });
  for (let k = 0; k < input.length; k += 3) hash.update(JSON.stringify(stream.push(input.slice(k, k + 3))));
  hash.update(JSON.stringify(stream.finalize()));
  return `${batch} stream:${hash.digest('hex')}`;
}

async function main(): Promise<number> {
  const inputs = corpus();
  const other = values.against === undefined ? null : (await import(pathToFileURL(resolve(values.against)).href)) as Engine;
  const total = createHash('sha256');
  const lines: string[] = [];
  let differences = 0;
  for (const [label, input] of inputs) {
    const mine = responses(ours, input);
    total.update(mine);
    if (values.out !== undefined) lines.push(JSON.stringify({ label, response: mine }));
    if (other === null) continue;
    const theirs = responses(other, input);
    if (theirs === mine) continue;
    if (++differences <= Number(values.limit)) {
      process.stdout.write(`DIFF ${label}\n  input:   ${JSON.stringify(input)}\n  this:    ${mine}\n  against: ${theirs}\n`);
    }
  }
  if (values.out !== undefined) writeFileSync(values.out, lines.join('\n') + '\n');
  process.stdout.write(`${inputs.length} inputs, digest ${total.digest('hex').slice(0, 16)}${other === null ? '' : `, ${differences} differ`}\n`);
  return differences === 0 ? 0 : 1;
}

process.exitCode = await main();
