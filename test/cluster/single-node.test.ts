// Without REDIS_URL a server is one node alone, exactly as before the cluster layer existed: issued
// envelope ids carry no node name, the peer endpoint does not exist, /metrics has no cluster series,
// and a session is simply not found on another server.
import t from 'tap';
import { PEER_PATH } from '../../server/streaming/forwarding/peer-client.js';
import { bearer, postJson, startServer } from '../helpers/start-server.js';

const KEY = 'single-node-key';

t.test('no REDIS_URL: no node names, no peer endpoint, no forwarding', async (t) => {
  const [a, b] = [await startServer(t, { API_KEYS: `${KEY}:unlimited` }), await startServer(t, { API_KEYS: `${KEY}:unlimited` })];
  const id = (await postJson(`${a.url}/v1/repair/stream/start`, {}, bearer(KEY))).body.session_id as string;
  t.match(id, /^[A-Za-z0-9_-]{22}$/, 'the id is 16 random bytes and nothing else');
  const peer = await fetch(`${a.url}${PEER_PATH}`, { method: 'POST', body: '' });
  t.equal(peer.status, 404, 'the peer endpoint is not mounted');
  await peer.arrayBuffer();
  t.notMatch(await (await fetch(`${a.url}/metrics`)).text(), /jsonmend_cluster_nodes|jsonmend_stream_forwards/);
  const elsewhere = await postJson(`${b.url}/v1/repair/stream/push`, { session_id: id, chunk: '[' }, bearer(KEY));
  t.equal(elsewhere.body.metadata.errors[0].code, 'SESSION_NOT_FOUND', 'another server knows nothing of it');
});
