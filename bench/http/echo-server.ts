// The reference server of bench/http: bare uWS that reads a POST body and sends it back as JSON,
// with no parsing, no auth, no logging. Whatever our server costs beyond this is our own work.
import { createRequire } from 'node:module';
import type * as Uws from '@trufflesuite/uws-js-unofficial';

const uws = createRequire(import.meta.url)('@trufflesuite/uws-js-unofficial') as typeof Uws;

uws.App()
  .post('/*', (res) => {
    let aborted = false;
    const parts: Buffer[] = [];
    res.onAborted(() => {
      aborted = true;
    });
    res.onData((chunk, isLast) => {
      parts.push(Buffer.from(chunk.slice(0)));
      if (isLast && !aborted) res.writeHeader('Content-Type', 'application/json').end(Buffer.concat(parts));
    });
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (socket === false) process.exit(1);
    process.stdout.write(`listening on http://127.0.0.1:${uws.us_socket_local_port(socket)}\n`);
  });
