// Configuration: every variable parsed once, defaults, and a refusal naming each bad variable.
import t from 'tap';
import { totalmem } from 'node:os';
import { bodyLimitFor, ConfigError, DEFAULTS, defaultStreamBufferBudget, loadConfig } from '../../server/config/load-config.js';
import { expectRefusal, startServer } from '../helpers/start-server.js';

t.test('defaults', async (t) => {
  const config = loadConfig({});
  t.match(config, {
    port: 8080, host: '0.0.0.0', dataDir: './data', apiKeys: [], queueMax: DEFAULTS.QUEUE_MAX, sessionTtlMs: 60_000,
    maxPayloadBytes: 5_242_880, demoLimitPerHour: 10, contract: 'auto', uwsAllowFallback: false,
    inlineMaxBytes: DEFAULTS.INLINE_MAX_BYTES, taskTimeoutMs: DEFAULTS.TASK_TIMEOUT_MS, maxSessions: DEFAULTS.MAX_SESSIONS,
    trustProxy: [], logLevel: 'info', testHooks: false, metricsToken: null,
  });
  t.ok(config.workers >= 1);
  t.ok(Object.isFrozen(config));
  t.equal(config.maxBodyBytes, bodyLimitFor(5_242_880));
  t.equal(config.maxBodyBytes, 6 * 5_242_880 + 1024 * 1024, 'six times the input (JSON escaping) plus 1 MiB for a schema');
  t.equal(config.streamBufferBudgetBytes, defaultStreamBufferBudget());
  t.ok(config.streamBufferBudgetBytes <= totalmem() / 4 && config.streamBufferBudgetBytes >= 16 * 1024 * 1024,
    `the buffer budget (${config.streamBufferBudgetBytes} bytes) is at most a quarter of memory`);
});

t.test('values are parsed and normalised', async (t) => {
  const config = loadConfig({
    PORT: '0', HOST: '127.0.0.1', DATA_DIR: '/tmp/x', API_KEYS: ' a-key-1:pro , b-key-2:UNLIMITED ,', WORKERS: '3',
    QUEUE_MAX: '0', SESSION_TTL_MS: '1000', MAX_PAYLOAD_BYTES: '1000', DEMO_LIMIT_PER_HOUR: '0', CONTRACT: 'Compact',
    UWS_ALLOW_FALLBACK: 'true', INLINE_MAX_BYTES: '0', TASK_TIMEOUT_MS: '50', MAX_SESSIONS: '5',
    STREAM_BUFFER_BUDGET_BYTES: '1048576', STREAM_PUSH_RATE: '50', STREAM_PUSH_BURST: '7', TRUST_PROXY: '10.0.0.0/8, ::1', LOG_LEVEL: 'debug', JSONMEND_TEST_HOOKS: '1',
  });
  t.match(config, {
    port: 0, host: '127.0.0.1', dataDir: '/tmp/x', workers: 3, queueMax: 0, sessionTtlMs: 1000, maxPayloadBytes: 1000,
    demoLimitPerHour: 0, contract: 'compact', uwsAllowFallback: true, inlineMaxBytes: 0, taskTimeoutMs: 50, maxSessions: 5,
    streamBufferBudgetBytes: 1_048_576, streamPushRate: 50, streamPushBurst: 7, logLevel: 'debug', testHooks: true,
  });
  t.same(config.apiKeys, [{ key: 'a-key-1', tier: 'pro' }, { key: 'b-key-2', tier: 'unlimited' }]);
  t.same(config.trustProxy, ['10.0.0.0/8', '::1']);
  t.equal(loadConfig({ PORT: '  ' }).port, 8080, 'blank means default');
});

t.test('every bad variable is named, all at once', async (t) => {
  const bad: Record<string, string> = {
    PORT: '70000', HOST: 'not a host!', API_KEYS: 'key-without-tier', WORKERS: '0', QUEUE_MAX: '-1',
    SESSION_TTL_MS: '1e3', MAX_PAYLOAD_BYTES: 'five', DEMO_LIMIT_PER_HOUR: '1.5', CONTRACT: 'json',
    UWS_ALLOW_FALLBACK: 'maybe', INLINE_MAX_BYTES: 'x', TASK_TIMEOUT_MS: '0', MAX_SESSIONS: '0',
    STREAM_BUFFER_BUDGET_BYTES: '100', TRUST_PROXY: '10.0.0.0/99', LOG_LEVEL: 'loud', METRICS_TOKEN: 'too short',
  };
  const error = t.throws(() => loadConfig(bad)) as unknown as ConfigError;
  t.ok(error instanceof ConfigError);
  t.equal(error.problems.length, Object.keys(bad).length);
  for (const name of Object.keys(bad)) t.ok(error.problems.some((p) => p.startsWith(`${name} `)), name);
  t.throws(() => loadConfig({ API_KEYS: 'dup-key:pro,dup-key:free' }), /API_KEYS.*twice/);
  t.throws(() => loadConfig({ API_KEYS: 'a key:pro' }), /API_KEYS/);
  t.throws(() => loadConfig({ API_KEYS: 'k:gold' }), /API_KEYS.*free, pro, team, scale, unlimited/);
  const refused = t.throws(() => loadConfig({ API_KEYS: 'supersecretvalue:gold' }), /API_KEYS/) as unknown as Error;
  t.match(refused.message, 'supe', 'the message names the entry by its first characters');
  t.notMatch(refused.message, 'supersecretvalue', 'a key is never echoed whole');
});

t.test('the server refuses to start on a bad value, naming the variable', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ WORKERS: '0' }, 'WORKERS'],
    [{ CONTRACT: 'soap' }, 'CONTRACT'],
    [{ MAX_PAYLOAD_BYTES: '-5' }, 'MAX_PAYLOAD_BYTES'],
  ];
  const results = await Promise.all(cases.map(([env]) => expectRefusal(env)));
  results.forEach((result, i) => {
    const [, name] = cases[i]!;
    t.not(result.code, 0, `${name}: non-zero exit`);
    t.match(result.stderr, new RegExp(`${name} must`), `${name} is named`);
    t.notMatch(result.stdout, /listening on/);
  });
});

t.test('uWS fallback: refused unless UWS_ALLOW_FALLBACK=1, then reported by /health', async (t) => {
  const refused = await expectRefusal({ UWS_USE_FALLBACK: '1' });
  t.not(refused.code, 0);
  t.match(refused.stderr, /UWS_ALLOW_FALLBACK=1/);
  const server = await startServer(t, { UWS_USE_FALLBACK: '1', UWS_ALLOW_FALLBACK: '1' });
  const health = await (await fetch(`${server.url}/health`)).json();
  t.equal(health.uws, 'fallback');
  const native = await startServer(t, {});
  t.equal((await (await fetch(`${native.url}/health`)).json()).uws, 'native');
});

t.test('a DATA_DIR that cannot be created stops the start at once, naming it', async (t) => {
  // Under /proc, Node's recursive mkdir loops forever at 100% CPU; the start must fail instead.
  const started = performance.now();
  const refused = await expectRefusal({ DATA_DIR: '/proc/nope/data' }, 8_000);
  t.equal(refused.code, 1, 'non-zero exit, not killed by the timeout');
  t.ok(performance.now() - started < 7_000, 'refused within seconds');
  t.match(refused.stderr, /DATA_DIR \(\/proc\/nope\/data\)/);
  t.notMatch(refused.stdout, /listening on/);
});

t.test('URL variables: each reads its own kinds of URL; a database URL is never echoed', async (t) => {
  const { readPeerUrl, readDatabaseUrl, readRedisUrl } = await import('../../server/config/env-parsers.js');
  const read = <T>(reader: (env: Record<string, string>, name: string) => T, value: string): T => reader({ X: value }, 'X');
  for (const ok of ['redis://127.0.0.1:6379/0', 'rediss://cache.example:6380', 'unix:///tmp/redis.sock']) t.equal(read(readRedisUrl, ok), ok, ok);
  for (const bad of ['http://h:1', 'redis://', 'unix:///', 'not a url']) t.throws(() => read(readRedisUrl, bad), /X.*redis:\/\/host:port\/db/, bad);
  for (const ok of ['postgres://u:p@h:5432/db', 'postgresql://u@h/db?host=/run/pg']) t.equal(read(readDatabaseUrl, ok), ok, ok);
  const refused = t.throws(() => read(readDatabaseUrl, 'mysql://u:hunter2@h/db')) as unknown as Error;
  t.match(refused.message, /postgres:\/\/user/);
  t.notMatch(refused.message, 'hunter2', 'the password is not echoed');
  t.equal(read(readPeerUrl, 'http://10.0.0.5:8080/'), 'http://10.0.0.5:8080', 'the origin');
  for (const bad of ['http://10.0.0.5:8080/path', 'ftp://h', 'nope']) t.throws(() => read(readPeerUrl, bad), /X.*http:\/\/ base URL/, bad);
  // Nodes speak plain HTTP to each other: https is refused with the reason, not at the first forward.
  for (const tls of ['https://10.0.0.5:8443', 'HTTPS://node-b']) t.throws(() => read(readPeerUrl, tls), /X must be an http:\/\/ URL: nodes talk plain HTTP/, tls);
  t.equal(readRedisUrl({}, 'X'), undefined, 'unset');
});
