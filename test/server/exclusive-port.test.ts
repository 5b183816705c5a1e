// A second server on a port already taken must not start: uWS would otherwise set SO_REUSEPORT and
// the kernel would split connections between two processes with different keys and sessions.
import { createServer } from 'node:net';
import t from 'tap';
import { expectRefusal, startServer } from '../helpers/start-server.js';

/** A port free right now. (A port the kernel picks for PORT=0 is never shared, so name one.) */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

t.test('a taken port stops the start with a message naming the port', async (t) => {
  const port = String(await freePort());
  const first = await startServer(t, { PORT: port });
  const second = await expectRefusal({ PORT: port }, 8_000);
  t.equal(second.code, 1, 'non-zero exit (not left running and killed by the timeout)');
  t.notMatch(second.stdout, /listening on/);
  t.match(second.stderr, new RegExp(`PORT=${port}`));
  t.match(second.stderr, /already in use/);
  t.equal((await fetch(`${first.url}/health`)).status, 200, 'the first server carries on');
});
