import t from 'tap';
import { readFileSync, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import {
  displayPrefix, generateApiKey, hashApiKey, newKeyId, LIVE_KEY_PREFIX,
} from '../../server/accounts/api-key.js';
import { CachedKeyStore } from '../../server/accounts/cached-key-store.js';
import { ManualClock } from '../../server/accounts/clock.js';
import type { AccountsStorage } from '../../server/accounts/storage/accounts-storage.js';
import { KnownKeyCache } from '../../server/accounts/known-key-cache.js';
import { loadConfig } from '../../server/config/load-config.js';
import { SCHEMA_VERSION } from '../../server/accounts/storage/migrations.js';
import { openStorage, tempDataDir } from './helpers.js';

/** API_KEYS as the server reads it. */
const parseApiKeys = (value: string) => loadConfig({ API_KEYS: value }).apiKeys;

t.test('key format: sk_live_ + 32 base62 characters, random, prefix of 12', async (t) => {
  const keys = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const key = generateApiKey();
    t.match(key, /^sk_live_[0-9A-Za-z]{32}$/);
    keys.add(key);
  }
  t.equal(keys.size, 200, 'no repeats');
  const key = generateApiKey();
  t.equal(displayPrefix(key), key.slice(0, 12));
  t.equal(displayPrefix('operator-secret-123'), 'oper', 'non-live keys reveal only 4 characters');
  t.equal(hashApiKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'SHA-256 hex');
  // all 62 symbols show up and none dominates (rejection sampling, no modulo bias)
  const counts = new Map<string, number>();
  for (let i = 0; i < 400; i++) for (const ch of generateApiKey().slice(LIVE_KEY_PREFIX.length)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  t.equal(counts.size, 62);
  t.ok(Math.max(...counts.values()) < 400 * 32 / 62 * 1.6, 'roughly uniform');
});

t.test('storage keeps only the hash: the key is nowhere in the database file', async (t) => {
  const dataDir = tempDataDir(t);
  const storage = openStorage(t, dataDir);
  const key = generateApiKey();
  const stored = await storage.createKey({
    id: newKeyId(), hash: hashApiKey(key), prefix: displayPrefix(key), name: 'ci', tier: 'pro', createdAt: 1,
  });
  t.equal(stored.hash, hashApiKey(key));
  t.equal(stored.prefix, key.slice(0, 12));
  const secretPart = key.slice(12);
  for (const file of [storage.path, `${storage.path}-wal`]) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    t.notOk(bytes.includes(key), `${file} does not hold the key`);
    t.notOk(bytes.includes(secretPart), `${file} does not hold the key's secret part`);
  }
  await storage.close();
  const bytes = readFileSync(storage.path);
  t.notOk(bytes.includes(secretPart), 'nor after checkpoint and close');
  t.ok(bytes.includes(hashApiKey(key)), 'the hash is there (the check above can see text)');
  const db = new Database(storage.path, { readonly: true });
  t.equal((db.prepare('SELECT max(version) v FROM schema_version').get() as { v: number }).v, SCHEMA_VERSION);
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  db.close();
});

t.test('list and revoke by prefix or id; ambiguous prefixes are refused', async (t) => {
  const storage = openStorage(t);
  const a = await storage.createKey({ id: 'key_a', hash: hashApiKey('a-key-1'), prefix: 'sk_live_AAAA', name: 'a', tier: 'free', createdAt: 10 });
  await storage.createKey({ id: 'key_b', hash: hashApiKey('b-key-1'), prefix: 'same', name: 'b', tier: 'pro', createdAt: 20 });
  await storage.createKey({ id: 'key_c', hash: hashApiKey('c-key-1'), prefix: 'same', name: 'c', tier: 'team', createdAt: 30 });
  t.same((await storage.listKeys()).map((k) => [k.id, k.tier, k.revokedAt]), [['key_a', 'free', null], ['key_b', 'pro', null], ['key_c', 'team', null]]);
  const v0 = await storage.keysVersion();
  const ambiguous = await storage.revokeKey('same', 99);
  t.equal(ambiguous.revoked, null);
  t.equal(ambiguous.matches.length, 2);
  t.equal(await storage.keysVersion(), v0, 'nothing changed');
  const done = await storage.revokeKey(a.prefix, 100);
  t.equal(done.revoked?.id, 'key_a');
  t.equal(done.revoked?.revokedAt, 100);
  t.equal(await storage.keysVersion(), v0 + 1, 'revoking bumps keys_version');
  t.equal((await storage.revokeKey(a.prefix, 101)).matches.length, 0, 'already revoked');
  t.equal((await storage.revokeKey('key_b', 102)).revoked?.id, 'key_b', 'by id');
  t.same((await storage.loadAllActiveKeys()).map((k) => k.id), ['key_c']);
  t.equal((await storage.findKeyByHash(hashApiKey('a-key-1')))?.revokedAt, 100);
});

t.test('cached key store: lookups, revocation, last-used batching', async (t) => {
  const storage = openStorage(t);
  const clock = new ManualClock();
  const store = new CachedKeyStore({ storage, clock });
  const key = generateApiKey();
  await storage.createKey({ id: 'key_1', hash: hashApiKey(key), prefix: displayPrefix(key), name: '', tier: 'pro', createdAt: 1 });
  t.equal(store.lookup(key), undefined, 'not loaded yet');
  t.equal(await store.refresh(), true);
  t.equal(await store.refresh(), false, 'no change, no reload');
  t.same(store.lookup(key), { id: 'key_1', tier: 'pro', prefix: key.slice(0, 12), accountId: 'key_1' });
  t.equal(store.lookup(key.slice(0, -1)), undefined);
  t.equal(store.lookup(key + 'x'), undefined);
  t.equal(store.lookup(''), undefined);
  t.equal(store.lookup('x'.repeat(10_000)), undefined, 'oversized header is not even hashed');
  clock.set(5_000);
  store.lookup(key);
  clock.set(6_000);
  store.lookup(key);
  t.equal((await storage.findKeyByHash(hashApiKey(key)))?.lastUsedAt, null, 'not written per request');
  await store.flushLastUsed();
  t.equal((await storage.findKeyByHash(hashApiKey(key)))?.lastUsedAt, 6_000, 'one batched write');
  await storage.revokeKey('key_1', 7_000);
  t.ok(store.lookup(key), 'still cached until the next refresh');
  await store.refresh();
  t.equal(store.lookup(key), undefined, 'revoked');
});

t.test('known-key cache: hits skip the hash, misses are not kept, every reload drops it', async (t) => {
  const storage = openStorage(t);
  const clock = new ManualClock();
  const store = new CachedKeyStore({ storage, clock });
  const key = generateApiKey();
  await storage.createKey({ id: 'key_1', hash: hashApiKey(key), prefix: displayPrefix(key), name: '', tier: 'pro', createdAt: 1 });
  await store.refresh();
  const first = store.lookup(key);
  t.match(first, { id: 'key_1', tier: 'pro' });
  t.equal(store.knownKeys, 1, 'an authenticated key is remembered');
  t.equal(store.lookup(key), first, 'the cached lookup gives the same record');
  for (let i = 0; i < 50; i++) t.equal(store.lookup(`${key.slice(0, -2)}-${i}`), undefined); // "-" is not base62: never the key
  t.equal(store.knownKeys, 1, 'unknown keys are never remembered');

  clock.set(9_000);
  store.lookup(key);
  await store.flushLastUsed();
  t.equal((await storage.findKeyByHash(hashApiKey(key)))?.lastUsedAt, 9_000, 'a cached hit still counts as a use');

  // A tier change reaches the request path with the reload, not a stale cached record.
  await store.seed(parseApiKeys('operator-key-1:free'));
  t.match(store.lookup('operator-key-1'), { tier: 'free' });
  await store.seed(parseApiKeys('operator-key-1:team'));
  t.match(store.lookup('operator-key-1'), { tier: 'team' }, 'the new tier, though the old record was cached');

  t.ok(store.lookup(key), 'cached before the revoke');
  await storage.revokeKey('key_1', 10_000);
  await store.refresh();
  t.equal(store.lookup(key), undefined, 'a revoked key is refused from the reload on, though its lookup was cached');
  t.equal(store.knownKeys, 0, 'the revoked key left the cache (the other key was not used since the reload)');
});

t.test('overlapping refreshes: an older table never replaces a newer one', async (t) => {
  const storage = openStorage(t);
  const key = generateApiKey();
  await storage.createKey({ id: 'key_1', hash: hashApiKey(key), prefix: displayPrefix(key), name: '', tier: 'pro', createdAt: 1 });
  let release: (() => void) | undefined;
  let holdNextLoad = false;
  // The storage, except that one table load can be held back after it has read the keys.
  const slow = {
    keysVersion: () => storage.keysVersion(),
    loadAllActiveKeys: async () => {
      const keys = await storage.loadAllActiveKeys();
      if (holdNextLoad) {
        holdNextLoad = false;
        await new Promise<void>((resolve) => { release = resolve; });
      }
      return keys;
    },
  } as unknown as AccountsStorage;
  const racing = new CachedKeyStore({ storage: slow, clock: new ManualClock() });
  await racing.refresh();
  t.ok(racing.lookup(key), 'loaded and cached');
  holdNextLoad = true;
  const early = racing.refresh(true); // has read a table that still holds the key, then stalls
  while (release === undefined) await new Promise((resolve) => setImmediate(resolve));
  await storage.revokeKey('key_1', 2);
  t.equal(await racing.refresh(), true, 'the later refresh sees the revoke');
  t.equal(racing.lookup(key), undefined, 'refused');
  release();
  t.equal(await early, false, 'the stalled refresh gives way');
  t.equal(racing.lookup(key), undefined, 'still refused: the stale table was not put back');
});

t.test('KnownKeyCache is bounded', async (t) => {
  const cache = new KnownKeyCache<number>(3);
  for (let i = 0; i < 10; i++) {
    cache.remember(`k${i}`, i);
    t.ok(cache.size <= 3, `size ${cache.size} after ${i + 1} keys`);
    t.equal(cache.get(`k${i}`), i, 'the newest key is kept');
  }
  cache.clear();
  t.equal(cache.size, 0);
  t.equal(cache.get('k9'), undefined);
});

t.test('API_KEYS parsing and seeding: insert, update tier, never un-revoke', async (t) => {
  t.same(parseApiKeys(''), []);
  t.same(parseApiKeys(' a-key:pro , b:key:unlimited,, '), [{ key: 'a-key', tier: 'pro' }, { key: 'b:key', tier: 'unlimited' }]);
  t.throws(() => parseApiKeys('abc:gold'), /API_KEYS.*tier one of/);
  t.throws(() => parseApiKeys('abc'), /API_KEYS/);
  t.throws(() => parseApiKeys(':pro'), /API_KEYS/);
  const storage = openStorage(t);
  const store = new CachedKeyStore({ storage, clock: new ManualClock() });
  t.same(await store.seed(parseApiKeys('seed-key-one:pro,seed-key-two:free')), [
    { prefix: 'seed', outcome: 'inserted' }, { prefix: 'seed', outcome: 'inserted' },
  ]);
  const first = store.lookup('seed-key-one');
  t.equal(first?.tier, 'pro');
  t.same((await store.seed(parseApiKeys('seed-key-one:team,seed-key-two:free'))).map((s) => s.outcome), ['updated', 'unchanged']);
  t.equal(store.lookup('seed-key-one')?.tier, 'team');
  t.equal(store.lookup('seed-key-one')?.id, first?.id, 'same id: update by hash, not a new row');
  await storage.revokeKey(first!.id, 1);
  t.same((await store.seed(parseApiKeys('seed-key-one:team'))).map((s) => s.outcome), ['revoked']);
  t.equal(store.lookup('seed-key-one'), undefined, 'a revoked key stays revoked');
  t.equal((await storage.listKeys()).length, 2);
});

t.test('migrations run once; a second open of the same file is a no-op', async (t) => {
  const dataDir = tempDataDir(t);
  const a = openStorage(t, dataDir);
  await a.createKey({ id: 'key_x', hash: hashApiKey('k-1'), prefix: 'k-1', name: '', tier: 'free', createdAt: 1 });
  const b = openStorage(t, dataDir);
  t.equal((await b.listKeys()).length, 1);
  await b.createUser({ id: 'u1', email: 'Ops@Example.com', passwordHash: 'scrypt$x', createdAt: 1 });
  t.equal((await a.findUserByEmail('ops@example.com'))?.id, 'u1', 'emails match case-insensitively');
  await t.rejects(b.createUser({ id: 'u2', email: 'ops@example.com', passwordHash: 'x', createdAt: 2 }), /UNIQUE/);
});
