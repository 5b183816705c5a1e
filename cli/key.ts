// `jsonmend key create --tier pro [--name x]` | `list` | `revoke <prefix-or-id>` (`npm run key --`
// runs the same). The operator's key tool. It writes the storage the server reads
// (server/accounts/storage/open-storage.ts: PostgreSQL with DATABASE_URL, else the SQLite file in DATA_DIR,
// default ./data); running servers pick changes up within a second. `create` prints the key as the last
// line of its output, and that is the only time the key is ever shown.
import { parseArgs } from 'node:util';
import { displayPrefix, generateApiKey, hashApiKey, newKeyId } from '../server/accounts/api-key.js';
import { isTierName, TIER_NAMES } from '../server/config/tiers.js';
import { openStorage } from '../server/accounts/storage/open-storage.js';
import type { StoredKey } from '../server/accounts/storage/accounts-storage.js';

const USAGE = `usage:
  jsonmend key create --tier <${TIER_NAMES.join('|')}> [--name <name>]
  jsonmend key list
  jsonmend key revoke <prefix-or-id>
(\`npm run key -- <command>\` is the same)
environment: DATABASE_URL (PostgreSQL), else DATA_DIR (default ./data)`;

class UsageError extends Error {}

/** Asked for: the usage on stdout, exit 0. */
class HelpWanted extends Error {}

function time(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function table(keys: readonly StoredKey[]): string {
  const header = ['prefix', 'id', 'name', 'tier', 'created', 'last used', 'revoked'];
  const rows = keys.map((k) => [k.prefix, k.id, k.name || '-', k.tier, time(k.createdAt), time(k.lastUsedAt), time(k.revokedAt)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

async function run(argv: string[], dataDir: string, databaseUrl: string | undefined): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { tier: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, ...rest] = positionals;
  if (values.help === true) throw new HelpWanted();
  if (command === undefined) throw new UsageError('');
  if (!['create', 'list', 'revoke'].includes(command)) throw new UsageError(`unknown command "${command}"`);
  if (command === 'create' && !isTierName(values.tier)) {
    throw new UsageError(`create needs --tier, one of ${TIER_NAMES.join(', ')}`);
  }
  if (command === 'revoke' && rest.length !== 1) throw new UsageError('revoke needs exactly one prefix or id');

  const { storage, where } = await openStorage({ dataDir, databaseUrl }, { busyTimeoutMs: 5_000 });
  try {
    if (command === 'create') {
      const tier = values.tier as (typeof TIER_NAMES)[number];
      const name = values.name ?? '';
      // Display prefixes of live keys are kept unique so `revoke <prefix>` is never ambiguous.
      const taken = new Set((await storage.listKeys()).map((k) => k.prefix));
      let key = generateApiKey();
      while (taken.has(displayPrefix(key))) key = generateApiKey();
      const stored = await storage.createKey({
        id: newKeyId(), hash: hashApiKey(key), prefix: displayPrefix(key), name, tier, createdAt: Date.now(),
      });
      console.log(`Created ${stored.tier} key ${stored.id}${name ? ` "${name}"` : ''} (prefix ${stored.prefix}) in ${where}.`);
      console.log('Copy it now: it is shown only this once and stored only as a hash.');
      console.log(key);
    } else if (command === 'list') {
      const keys = await storage.listKeys();
      console.log(keys.length === 0 ? `No keys in ${where}.` : table(keys));
    } else {
      const target = rest[0]!;
      const { revoked, matches } = await storage.revokeKey(target, Date.now());
      if (revoked !== null) {
        console.log(`Revoked ${revoked.prefix} (${revoked.id}); a running server refuses it within a second.`);
      } else if (matches.length === 0) {
        console.error(`No active key has the prefix or id "${target}".`);
        return 1;
      } else {
        console.error(`"${target}" matches ${matches.length} active keys; revoke one by id:\n${table(matches)}`);
        return 1;
      }
    }
    return 0;
  } finally {
    await storage.close();
  }
}

/** Runs `jsonmend key …`; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    return await run(argv, process.env['DATA_DIR']?.trim() || './data', process.env['DATABASE_URL']?.trim() || undefined);
  } catch (error) {
    if (error instanceof HelpWanted) {
      console.log(USAGE);
      return 0;
    }
    const message = (error as Error).message;
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      if (message) console.error(`key: ${message}`);
      console.error(USAGE);
      return 2;
    }
    console.error(`key: ${message}`);
    return 1;
  }
}
