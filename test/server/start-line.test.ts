// The line `npm start` prints when it is ready names the playground and the console (addresses
// that answer, localhost for a server on every address) and says how to make an API key. The
// same holds for the PROCESSES primary's line.
import t from 'tap';
import { startRedis } from '../../support/redis-server.js';
import { startServer } from '../helpers/start-server.js';
import { NEW_KEY_HINT, startHints } from '../../server/observe/start-hints.js';

t.test('a server on every address is shown at localhost', async (t) => {
  t.same(startHints('http://0.0.0.0:8080'), { playground: 'http://localhost:8080/', console: 'http://localhost:8080/console', newKey: NEW_KEY_HINT });
  t.equal(startHints('http://[::]:8080').console, 'http://localhost:8080/console');
  t.equal(startHints('http://127.0.0.1:9000').playground, 'http://127.0.0.1:9000/');
  t.match(NEW_KEY_HINT, /npm run key -- create/);
});

t.test('the listening line names pages that answer and how to make a key', async (t) => {
  const server = await startServer(t);
  const line = JSON.parse(server.stdout().split('\n').find((l) => l.includes('listening on'))!);
  t.equal(line.playground, `${server.url}/`);
  t.equal(line.console, `${server.url}/console`);
  t.equal(line.newKey, NEW_KEY_HINT);
  for (const page of [line.playground, line.console]) {
    const answer = await fetch(page);
    t.equal(answer.status, 200, `${page} answers`);
    t.match(answer.headers.get('content-type'), /text\/html/);
  }
});

t.test('so does the PROCESSES primary', async (t) => {
  const redis = await startRedis(t);
  const server = await startServer(t, { PROCESSES: '2', REDIS_URL: redis.url, CLUSTER_SECRET: 'start-line-secret-0123456789' }, 30_000);
  const line = JSON.parse(server.stdout().split('\n').find((l) => l.includes('listening on'))!);
  t.equal(line.processes, 2);
  t.equal(line.console, `${server.url}/console`);
  t.equal(line.newKey, NEW_KEY_HINT);
});
