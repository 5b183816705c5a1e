// A second server on a port already taken must not start: uWS would otherwise set SO_REUSEPORT and
// the kernel would split connections between two processes with different keys and sessions.
import t from 'tap';
import { freePort } from '../../support/free-port.js';
import { expectRefusal, startServer } from '../helpers/start-server.js';

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
