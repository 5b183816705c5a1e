// The Python client (clients/python, package `jsonmend`) against the real server: its own unittest
// suite, run with python3 against two servers (one with a short SESSION_TTL_MS for the expiry
// replay). The suite runs against the wheel `pip install --no-build-isolation` builds and installs
// into a temporary folder, without reaching an index, as a user gets it. The wheel is built by
// `python3` when it has setuptools and a wheel builder, else by Debian's /usr/bin/python3
// (python3-setuptools, python3-wheel, python3-pip); with neither, the suite runs against the source,
// except in CI (CI=true, .ci/run installs them), where that is a failure.
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

// setuptools builds wheels by itself from 70.1 on; before that it needs the `wheel` package; and pip.
const WHEEL_PROBE = 'import setuptools, pip, importlib.util as u, sys; sys.exit(0 if u.find_spec("setuptools.command.bdist_wheel") or u.find_spec("wheel") else 1)';
const builder = ['python3', '/usr/bin/python3'].find((python) => spawnSync(python, ['-c', WHEEL_PROBE]).status === 0);
const noBuilder = 'no python3 with setuptools, a wheel builder and pip (Debian: python3-setuptools python3-wheel python3-pip): the suite runs against the source';
if (builder === undefined && process.env['CI'] === 'true') t.fail(noBuilder);
let pythonPath = join(PYTHON, 'src');
t.test('pip builds and installs the client without an index', { skip: builder === undefined ? noBuilder : false }, async (st) => {
  const dir = mkdtempSync(join(tmpdir(), 'jsonmend-wheel-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pip = (args: string[]) => run(builder!, ['-m', 'pip', ...args, '--quiet', '--no-build-isolation', '--no-deps', '--no-index'], { timeout: 120_000 });
  await pip(['wheel', '--wheel-dir', dir, PYTHON]);
  const wheel = readdirSync(dir).find((f) => f.endsWith('.whl'));
  st.equal(wheel, `jsonmend-${version}-py3-none-any.whl`, 'pip wheel --no-build-isolation --no-index builds the wheel');
  // The documented command, into a folder of its own rather than the system's site-packages.
  await pip(['install', '--target', join(dir, 'site'), PYTHON]);
  st.ok(readdirSync(join(dir, 'site')).includes(`jsonmend-${version}.dist-info`), 'pip install --no-build-isolation --no-index ./clients/python installs it');
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
