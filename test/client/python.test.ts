// The Python client (clients/python, package `jsonmend`) against the real server: its own unittest
// suite, run with python3 against two servers (one with a short SESSION_TTL_MS for the expiry
// replay). When python3's setuptools can build a wheel, the suite runs against the wheel installed
// into a temporary folder, as a user gets it; otherwise against the source.
import t from 'tap';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateApiKey } from '../../server/accounts/api-key.js';
import { ROOT } from '../helpers/run-cli.js';
import { startServer } from '../helpers/start-server.js';

const PYTHON = join(ROOT, 'clients', 'python');
const run = promisify(execFile);
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const probe = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
t.equal(probe.status, 0, 'python3 runs');
const [major, minor] = probe.stdout.trim().split('.').map(Number);
t.ok(major === 3 && minor! >= 9, `python3 is 3.9 or later (${probe.stdout.trim()})`);

t.match(readFileSync(join(PYTHON, 'pyproject.toml'), 'utf8'), new RegExp(`^version = "${version.replace(/\./g, '\\.')}"$`, 'm'), 'pyproject.toml has the repository version');
t.match(readFileSync(join(PYTHON, 'src', 'jsonmend', '_version.py'), 'utf8'), `__version__ = "${version}"`, '__version__ is the repository version');

const KEY = generateApiKey();
const server = await startServer(t, { API_KEYS: `${KEY}:unlimited` }, 30_000);
const shortTtl = await startServer(t, { API_KEYS: `${KEY}:unlimited`, SESSION_TTL_MS: '150' }, 30_000);

// setuptools builds wheels by itself from 70.1 on; before that it needs the `wheel` package.
const canBuildWheel = spawnSync('python3', ['-c', 'import setuptools, importlib.util as u, sys; sys.exit(0 if u.find_spec("setuptools.command.bdist_wheel") or u.find_spec("wheel") else 1)']).status === 0;
let pythonPath = join(PYTHON, 'src');
t.test('pip wheel --no-build-isolation builds a wheel that installs', { skip: canBuildWheel ? false : 'python3 has no wheel builder (setuptools < 70.1 without the wheel package): the suite runs against the source' }, async (st) => {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-wheel-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  await run('python3', ['-m', 'pip', 'wheel', '--quiet', '--no-build-isolation', '--no-deps', '--wheel-dir', dir, PYTHON], { timeout: 120_000 });
  const wheel = readdirSync(dir).find((f) => f.endsWith('.whl'));
  st.equal(wheel, `jsonmend-${version}-py3-none-any.whl`, 'pip wheel --no-build-isolation builds the wheel');
  await run('python3', ['-m', 'pip', 'install', '--quiet', '--no-deps', '--no-index', '--target', join(dir, 'site'), join(dir, wheel!)], { timeout: 120_000 });
  pythonPath = join(dir, 'site');
});

t.test('python3 -m unittest: the client against the server', async (t) => {
  const env = { ...process.env, PYTHONPATH: pythonPath, PYTHONDONTWRITEBYTECODE: '1', JSONMEND_URL: server.url, JSONMEND_TTL_URL: shortTtl.url, JSONMEND_KEY: KEY, JSONMEND_VERSION: version };
  const result = await run('python3', ['-m', 'unittest', 'discover', '-v', '-s', 'tests', '-t', '.'], { cwd: PYTHON, env, timeout: 110_000 })
    .then(({ stderr }) => ({ code: 0, stderr }), (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }));
  if (result.code !== 0) t.comment(result.stderr.slice(-6000));
  t.equal(result.code, 0, 'the unittest suite passed');
  const ran = Number(/^Ran (\d+) tests?/m.exec(result.stderr)?.[1] ?? 0);
  t.ok(ran >= 20, `ran ${ran} tests`);
  t.notMatch(result.stderr, /skipped/, 'none skipped');
});
