// A loopback port free right now, for a process that must be told its port before it starts
// (PostgreSQL, HAProxy, a node named in another's config). A port the kernel picks for PORT=0 is
// never shared, so prefer that where the process reports it.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
