// The streaming scenario: each connection runs sessions one after another (start, 100 pushes of a
// model reply, finalize), the session id carried from the start's answer into the next requests.
// The endpoints follow the spec's envelope contract (/v1/repair/stream/start|push|finalize).
import { chunksOf, type Input } from './bodies.js';
import { bearer, classifyEnvelope, classifyPush } from './answers.js';
import type { Context, Outcome, RequestSpec } from '../lib/load.js';

export const STREAM_PUSHES = 100;
const SESSION_ID = /"session_id":"([^"]+)"/;

function classifyStart(status: number, body: string): Outcome {
  return SESSION_ID.test(body) ? 'ok' : classifyEnvelope(status, body);
}

export function streamSessionRequests(key: string, input: Input): RequestSpec[] {
  const headers = bearer(key);
  const chunks = chunksOf(input.text, STREAM_PUSHES);
  const start: RequestSpec = {
    method: 'POST', path: '/v1/repair/stream/start', headers, body: '{}', classify: classifyStart, inputBytes: 0,
    remember: (body: string, context: Context) => {
      context.sessionId = SESSION_ID.exec(body)?.[1] ?? '';
    },
  };
  // Pushes and finalize are built per connection; the id is all that changes, so the rest of each
  // body is prepared once.
  const pushes = chunks.map((chunk): RequestSpec => {
    const tail = `,"chunk":${JSON.stringify(chunk)}}`;
    return {
      method: 'POST', path: '/v1/repair/stream/push', headers, classify: classifyPush, inputBytes: Buffer.byteLength(chunk),
      // No session (the start was refused): start over, as a client would, instead of pushing.
      bodyFrom: (context) => (context.sessionId ? `{"session_id":${JSON.stringify(context.sessionId)}${tail}` : null),
    };
  });
  const finalize: RequestSpec = {
    method: 'POST', path: '/v1/repair/stream/finalize', headers, classify: classifyEnvelope, inputBytes: 0,
    bodyFrom: (context) => (context.sessionId ? JSON.stringify({ session_id: context.sessionId }) : null),
  };
  return [start, ...pushes, finalize];
}

export type StreamProbe = { kind: 'unavailable'; status: number } | { kind: 'answer'; value: unknown; problem: string | null };

async function post(url: string, path: string, key: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> | null }> {
  const response = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) }, body: JSON.stringify(body) });
  const text = await response.text();
  try {
    return { status: response.status, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, json: null };
  }
}

/** One whole session by hand: 404 on start means the endpoints are not there (yet). */
export async function probeStream(url: string, key: string, input: Input): Promise<StreamProbe> {
  const started = await post(url, '/v1/repair/stream/start', key, {});
  if (started.status === 404) return { kind: 'unavailable', status: 404 };
  const id = started.json?.session_id;
  if (typeof id !== 'string') return { kind: 'answer', value: null, problem: `start answered ${JSON.stringify(started.json)?.slice(0, 200)}` };
  for (const chunk of chunksOf(input.text, STREAM_PUSHES)) {
    const pushed = await post(url, '/v1/repair/stream/push', key, { session_id: id, chunk });
    if (pushed.json === null || typeof pushed.json.state !== 'object') {
      return { kind: 'answer', value: null, problem: `push answered HTTP ${pushed.status} ${JSON.stringify(pushed.json)?.slice(0, 200)}` };
    }
  }
  const done = await post(url, '/v1/repair/stream/finalize', key, { session_id: id });
  if (done.json?.success !== true) return { kind: 'answer', value: null, problem: `finalize answered ${JSON.stringify(done.json)?.slice(0, 200)}` };
  return { kind: 'answer', value: done.json.repaired, problem: null };
}
