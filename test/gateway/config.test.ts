// The gateway's settings, read and checked once at start (server/config/load-config.ts).
import t from 'tap';
import { DEFAULTS, loadConfig } from '../../server/config/load-config.js';

t.test('UPSTREAM_URL: an http(s) base ending in /v1, kept without its trailing slash; off by default', async (t) => {
  const bare = loadConfig({});
  t.equal(bare.upstreamUrl, undefined);
  t.equal(bare.upstreamApiKey, null);
  t.equal(bare.upstreamTimeoutMs, DEFAULTS.UPSTREAM_TIMEOUT_MS);
  t.equal(bare.upstreamKeyFromCaller, false);
  t.equal(loadConfig({ UPSTREAM_URL: 'https://api.openai.com/v1/' }).upstreamUrl, 'https://api.openai.com/v1');
  t.equal(loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:11434/v1' }).upstreamUrl, 'http://127.0.0.1:11434/v1');
  for (const bad of ['api.openai.com/v1', 'https://api.openai.com', 'ftp://x/v1', 'https://x/v1?key=1', 'https://user:secret@x/v2']) {
    t.throws(() => loadConfig({ UPSTREAM_URL: bad }), /UPSTREAM_URL must be/, bad);
  }
  try {
    loadConfig({ UPSTREAM_URL: 'https://user:secret@x/v2' });
  } catch (error) {
    t.notMatch((error as Error).message, /secret/, 'the value is never echoed');
    t.match((error as Error).message, /UPSTREAM_URL/);
  }
});

t.test('UPSTREAM_TIMEOUT_MS, UPSTREAM_KEY_FROM_CALLER, UPSTREAM_API_KEY', async (t) => {
  const config = loadConfig({ UPSTREAM_TIMEOUT_MS: '2500', UPSTREAM_KEY_FROM_CALLER: '1', UPSTREAM_API_KEY: 'sk-abc' });
  t.equal(config.upstreamTimeoutMs, 2500);
  t.equal(config.upstreamKeyFromCaller, true);
  t.equal(config.upstreamApiKey, 'sk-abc');
  t.throws(() => loadConfig({ UPSTREAM_TIMEOUT_MS: '5' }), /UPSTREAM_TIMEOUT_MS/);
  t.throws(() => loadConfig({ UPSTREAM_KEY_FROM_CALLER: 'maybe' }), /UPSTREAM_KEY_FROM_CALLER/);
  t.throws(() => loadConfig({ UPSTREAM_API_KEY: 'has space' }), /UPSTREAM_API_KEY/);
});
