// The integration points the accounts layer plugs into, exercised in process against the compiled
// server (dist/, so the pool finds its worker file): a custom key store, an admission hook that
// refuses (RATE_LIMIT_EXCEEDED: envelope 200, compact 429) or admits with headers and a warning,
// the client IP it is given, and a request observer.
import t from 'tap';
import type { RunningServer, ServerParts } from '../../server/app.js';
import type { AdmissionHook, AdmissionDecision } from '../../server/http/admission-hook.js';
import type { RequestRecord } from '../../server/observe/request-record.js';
import { makeError, makeWarning } from '../../server/contracts/error-codes.js';
import { postJson } from '../helpers/start-server.js';

const { startServer } = (await import(new URL('../../dist/server/app.js', import.meta.url).href)) as typeof import('../../server/app.js');
const { loadConfig } = (await import(new URL('../../dist/server/config/load-config.js', import.meta.url).href)) as typeof import('../../server/config/load-config.js');
const { Logger } = (await import(new URL('../../dist/server/observe/logger.js', import.meta.url).href)) as typeof import('../../server/observe/logger.js');
const { Writable } = await import('node:stream');

const seen: { route: string; keyId: string | undefined; clientIp: string }[] = [];
const records: RequestRecord[] = [];
const limitHeaders = [['X-RateLimit-Limit', '60'], ['X-RateLimit-Remaining', '0'], ['X-RateLimit-Reset', '1700000000']] as const;

const admission: AdmissionHook = {
  needsClientIp: true,
  admit(route, key, clientIp): AdmissionDecision {
    seen.push({ route, keyId: key?.id, clientIp });
    if (key?.tier === 'free' || route === 'demo') {
      return { allowed: false, error: makeError('RATE_LIMIT_EXCEEDED'), retryAfterSeconds: 30, headers: limitHeaders };
    }
    return { allowed: true, headers: [['X-RateLimit-Remaining', '299']], warnings: [makeWarning('QUOTA_EXCEEDED')] };
  },
};

const parts: ServerParts = {
  keyStore: { lookup: (key) => (key === 'free-key' ? { id: 'k_free', tier: 'free', prefix: 'free', accountId: 'k_free' } : key === 'pro-key' ? { id: 'k_pro', tier: 'pro', prefix: 'pro-', accountId: 'k_pro' } : undefined) },
  admission,
  observers: [{ onRequest: (record) => records.push(record) }],
  logger: new Logger('silent', new Writable({ write: (_c, _e, done) => done() })),
};
const server: RunningServer = await startServer(loadConfig({ PORT: '0', HOST: '127.0.0.1', WORKERS: '1' }), parts);
t.teardown(() => server.shutdown());
const url = `${server.url}/v1/repair`;
const close = { connection: 'close' };

t.test('refused by admission: envelope 200, compact 429 { error, retryAfter }, headers kept', async (t) => {
  const envelope = await postJson(url, { raw_output: '{}' }, { ...close, authorization: 'Bearer free-key' });
  t.equal(envelope.status, 200);
  t.match(envelope.body.metadata.errors[0], { code: 'RATE_LIMIT_EXCEEDED', severity: 'high', recoverable: true });
  t.equal(envelope.headers.get('x-ratelimit-limit'), '60');
  t.equal(envelope.headers.get('x-ratelimit-reset'), '1700000000');
  const compact = await postJson(url, { content: '{}' }, { ...close, authorization: 'Bearer free-key' });
  t.equal(compact.status, 429);
  t.same(compact.body, { error: 'Rate limit exceeded.', retryAfter: 30 });
  t.equal(compact.headers.get('x-ratelimit-remaining'), '0');
  t.ok(compact.headers.get('x-request-id'));
  const demo = await postJson(`${server.url}/v1/demo/repair`, { content: '[]' }, close);
  t.equal(demo.status, 429);
  t.equal(demo.body.retryAfter, 30);
});

t.test('admitted: its headers and warnings reach the answer; confidence drops to medium', async (t) => {
  const envelope = await postJson(url, { raw_output: '{"a":1}' }, { ...close, authorization: 'Bearer pro-key' });
  t.equal(envelope.body.success, true);
  t.equal(envelope.body.metadata.confidence, 'medium');
  t.match(envelope.body.metadata.warnings, [{ code: 'QUOTA_EXCEEDED', severity: 'medium' }]);
  t.equal(envelope.headers.get('x-ratelimit-remaining'), '299');
  const compact = await postJson(url, { content: '{"a":1}' }, { ...close, authorization: 'Bearer pro-key' });
  t.match(compact.body, { valid: true, confidence: 'medium', warnings: [{ code: 'QUOTA_EXCEEDED' }] });
});

t.test('the hook is not asked about unauthenticated requests; it gets the client IP', async (t) => {
  seen.length = 0;
  const unknown = await postJson(url, { raw_output: '{}' }, { ...close, authorization: 'Bearer nope' });
  t.equal(unknown.body.metadata.errors[0].code, 'INVALID_API_KEY');
  t.same(seen, []);
  await postJson(`${server.url}/v1/demo/repair`, { raw_output: '[]' }, close);
  t.same(seen, [{ route: 'demo', keyId: undefined, clientIp: '127.0.0.1' }]);
});

t.test('observers see every request, with the key id and never the input', async (t) => {
  records.length = 0;
  await postJson(url, { raw_output: '{"secret-marker":1' }, { ...close, authorization: 'Bearer pro-key' });
  t.equal(records.length, 1);
  t.match(records[0], {
    route: 'repair', keyId: 'k_pro', contract: 'envelope', status: 200, outcome: 'ok', confidence: 'medium',
    repairCounts: { closed_object_bracket: 1 }, inputBytes: 18, execution: 'inline', latencyMs: Number, requestId: String,
  });
  t.notMatch(JSON.stringify(records), 'secret-marker');
});
