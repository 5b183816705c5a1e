// HTTP fuzzing for `npm run fuzz -- --http`: the real server on 127.0.0.1 gets random bodies, byte-
// flipped valid requests, broken UTF-8, odd content types and cut-off raw requests, in batches;
// /health must answer after every batch and every answer must be JSON with a registered code.
import { connect } from 'node:net';
import { ERROR_CODES } from '../server/contracts/error-codes.js';
import type { Random } from '../support/random.js';
import { generateKey, startJsonmend } from '../support/server-process.js';

export interface HttpFuzzReport {
  requests: number;
  rawRequests: number;
  problems: string[];
  healthChecks: number;
}

const CODES = new Set(Object.keys(ERROR_CODES));
const TYPES = [null, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1'];
const VALID = ['{"raw_output": "{a: 1, b: [2,", "mode": "lenient"}', '{"content": "```json\\n{\\"x\\": tru", "schema": {"type": "object"}}', '{"raw_output": "[1, 2, 3]"}'];

function bytes(random: Random, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = random.int(256);
  return out;
}

function flipped(random: Random): Buffer {
  const out = Buffer.from(random.pick(VALID));
  for (let i = random.int(4) + 1; i > 0; i--) out[random.int(out.length)] = random.int(256);
  return out;
}

function body(random: Random): Buffer {
  const roll = random.int(4);
  if (roll === 0) return bytes(random, random.chance(0.8) ? random.int(200) : random.int(100_000));
  if (roll === 1) return flipped(random);
  if (roll === 2) return Buffer.concat([Buffer.from('{"raw_output": "'), bytes(random, random.int(3000)), Buffer.from('"}')]);
  return Buffer.from(`{"raw_output": ${JSON.stringify('['.repeat(random.int(5000)) + '{"a":'.repeat(random.int(5000)))}}`);
}

/** A request cut at a random byte, sent raw, then the socket closed: the server must not care. */
function cutRequest(url: string, random: Random, key: string): Promise<void> {
  const { port } = new URL(url);
  const payload = random.pick(VALID);
  const whole = `POST /v1/repair HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${payload.length + random.int(3)}\r\n\r\n${payload}`;
  const cut = whole.slice(0, random.int(whole.length));
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(cut);
      setTimeout(() => socket.destroy(), random.int(50));
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

export async function fuzzHttp(random: Random, batches: number, perBatch: number, log: (line: string) => void): Promise<HttpFuzzReport> {
  const key = generateKey();
  const server = await startJsonmend({ API_KEYS: `${key}:unlimited`, WORKERS: '2', LOG_LEVEL: 'warn', INLINE_MAX_BYTES: '2048', DEMO_LIMIT_PER_HOUR: '1000000' });
  const report: HttpFuzzReport = { requests: 0, rawRequests: 0, problems: [], healthChecks: 0 };
  try {
    for (let batch = 0; batch < batches; batch++) {
      await Promise.all(Array.from({ length: perBatch }, async () => {
        if (random.chance(0.15)) {
          report.rawRequests++;
          return cutRequest(server.url, random, key);
        }
        const type = random.pick(TYPES);
        const headers: Record<string, string> = { authorization: `Bearer ${key}` };
        if (type !== null) headers['content-type'] = type;
        const path = random.chance(0.2) ? '/v1/demo/repair' : '/v1/repair';
        const sent = body(random);
        report.requests++;
        const response = await fetch(server.url + path, { method: 'POST', headers, body: sent });
        const text = await response.text();
        const problem = answerProblem(response, text);
        if (problem !== null) report.problems.push(`${problem}: body ${JSON.stringify(sent.toString('latin1').slice(0, 120))}`);
      }));
      const health = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, () => 0);
      report.healthChecks++;
      if (health !== 200) report.problems.push(`batch ${batch}: /health answered ${health}`);
      if (server.exited()) {
        report.problems.push(`batch ${batch}: the server exited`);
        break;
      }
      if (batch % 10 === 9) log(`  http batch ${batch + 1}/${batches}: ${report.requests} requests, ${report.rawRequests} raw, ${report.problems.length} problems`);
    }
  } finally {
    await server.stop();
  }
  return report;
}

function answerProblem(response: Response, text: string): string | null {
  if (response.headers.get('content-type') !== 'application/json') return `content type ${response.headers.get('content-type')}`;
  if (response.headers.get('x-content-type-options') !== 'nosniff') return 'no nosniff';
  if (/\n\s+at |node:internal|\.js:\d+:\d+/.test(text)) return 'a stack trace in the answer';
  let answer: any;
  try {
    answer = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 80)}`;
  }
  if (answer.success === true || answer.valid === true) return null;
  if (typeof answer.error === 'string' && response.status === 429) return null;
  const code = (answer.metadata?.errors ?? answer.errors)?.[0]?.code;
  return CODES.has(code) ? null : `unregistered error code ${code}`;
}
