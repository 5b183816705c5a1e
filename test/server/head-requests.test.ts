// HEAD wherever GET is served: the same status and headers, the Content-Length of
// the GET body, and no body. Checked over raw sockets with a GET pipelined behind each HEAD on the
// same connection: a body after the HEAD answer would be read as the start of the next answer.
import t from 'tap';
import { startServer } from '../helpers/start-server.js';
import { rawExchange } from '../hardening/helpers.js';

const KEY = 'head-test-key-0001';
const server = await startServer(t, { API_KEYS: `${KEY}:pro` });

interface Answer { status: number; headers: Map<string, string>; body: Buffer }

/** Splits the bytes of consecutive answers; `bodiless[i]` says answer i has no body whatever its Content-Length. */
function splitAnswers(data: Buffer, bodiless: readonly boolean[]): Answer[] {
  const answers: Answer[] = [];
  let offset = 0;
  for (const noBody of bodiless) {
    const end = data.indexOf('\r\n\r\n', offset);
    if (end === -1) break;
    const [statusLine, ...lines] = data.subarray(offset, end).toString('latin1').split('\r\n');
    const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = noBody ? 0 : Number(headers.get('content-length') ?? 0);
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body: data.subarray(end + 4, end + 4 + length) });
    offset = end + 4 + length;
  }
  if (offset !== data.length) answers.push({ status: -1, headers: new Map(), body: data.subarray(offset) }); // stray bytes
  return answers;
}

/**
 * Waits for exactly the answers `bodiless` describes, whole, instead of for the connection to go
 * quiet for a guessed time; an answer that never completes (or stray bytes) runs into the timeout.
 */
const answered = (bodiless: readonly boolean[]) => ({ timeoutMs: 15_000, stopWhen: (data: Buffer) => splitAnswers(data, bodiless).length === bodiless.length });

function request(method: string, path: string, extra = ''): string {
  return `${method} ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${KEY}\r\n${extra}\r\n`;
}

// Different on every answer (set-cookie: a fresh anonymous console session and CSRF token).
const VOLATILE = new Set(['date', 'x-request-id', 'content-length', 'set-cookie']);

t.test('HEAD answers like GET without the body, wherever GET is served', async (t) => {
  const page = await (await fetch(`${server.url}/`)).text();
  const asset = /\/assets\/[^"']+\.js/.exec(page)?.[0];
  t.ok(asset, 'the playground links a script asset');
  const paths = ['/health', '/metrics', '/', '/console', '/openapi.json', asset!, '/v1/usage', '/console/api/session'];
  const cases = paths.flatMap((path) => ['', 'accept-encoding: gzip\r\n'].map((extra) => [path, extra] as const));
  // HEAD, then GET on the same connection: all at once, each until both answers are in.
  const exchanges = await Promise.all(cases.map(([path, extra]) => rawExchange(server.url, [request('HEAD', path, extra) + request('GET', path, extra)], answered([true, false]))));
  for (const [i, [path, extra]] of cases.entries()) {
    const [head, get, stray] = splitAnswers(exchanges[i]!.data, [true, false]);
    const label = `${path}${extra === '' ? '' : ' (gzip)'}`;
    t.ok(head !== undefined && get !== undefined, `${label}: two answers`);
    t.equal(stray, undefined, `${label}: no stray bytes: the HEAD answer carried no body`);
    if (head === undefined || get === undefined) continue;
    t.equal(head.status, get.status, `${label}: same status (${get.status})`);
    t.not(head.status, 405, `${label}: not refused`);
    if (path === '/metrics') {
      // The counters move between the two answers (the HEAD itself is counted).
      const length = Number(head.headers.get('content-length'));
      t.ok(Math.abs(length - get.body.byteLength) < get.body.byteLength * 0.1, `${label}: Content-Length ${length}, about the GET body's ${get.body.byteLength}`);
    } else {
      t.equal(head.headers.get('content-length'), String(get.body.byteLength), `${label}: Content-Length of the GET body`);
    }
    for (const [name, value] of get.headers) {
      if (!VOLATILE.has(name)) t.equal(head.headers.get(name), value, `${label}: same ${name}`);
      else t.ok(head.headers.has(name), `${label}: has ${name}`);
    }
  }
});

t.test('HEAD on an unknown path or a POST-only one: 404 / 405 without a body', async (t) => {
  const exchange = await rawExchange(server.url, [request('HEAD', '/nope') + request('HEAD', '/v1/repair') + request('GET', '/health')], answered([true, true, false]));
  const [notFound, notAllowed, health, stray] = splitAnswers(exchange.data, [true, true, false]);
  t.equal(notFound?.status, 404);
  t.equal(notAllowed?.status, 405);
  t.equal(notAllowed?.headers.get('allow'), 'POST');
  t.equal(health?.status, 200, 'the next answer on the connection is intact');
  t.equal(stray, undefined, 'no stray bytes');
  // GET paths advertise HEAD in Allow.
  const post = await fetch(`${server.url}/health`, { method: 'POST' });
  t.equal(post.headers.get('allow'), 'GET, HEAD');
});
