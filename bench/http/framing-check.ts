// What the request-framing check (server/http/request-framing.ts) costs each request: inside a real
// uWS handler, the check (one req.forEach over every header) is timed against a single
// req.getHeader, for a request head as an API client sends it (7 headers) and a browser-sized one
// (16). Run: `npm run build && node dist/bench/http/framing-check.js`.
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import type * as Uws from '@trufflesuite/uws-js-unofficial';
import { framingProblem } from '../../server/http/request-framing.js';
import { printTable } from '../lib/table.js';
import { measureInterleaved } from '../lib/timing.js';

const uws = createRequire(import.meta.url)('@trufflesuite/uws-js-unofficial') as typeof Uws;

const API_HEADERS = [
  'host: 127.0.0.1', 'user-agent: python-requests/2.32', 'accept: */*', 'content-type: application/json',
  'authorization: Bearer sk-0123456789abcdef0123456789abcdef', 'x-request-id: 3f0c2a9e-1', 'content-length: 0',
];
const BROWSER_HEADERS = [
  ...API_HEADERS, 'accept-language: en-GB,en;q=0.9', 'accept-encoding: gzip, deflate, br', 'origin: https://example.com',
  'referer: https://example.com/console', 'sec-fetch-mode: cors', 'sec-fetch-site: same-origin', 'sec-fetch-dest: empty',
  'cookie: jm_session=0123456789abcdef0123456789abcdef; jm_csrf=abcdef',
];

const rows: (string | number)[][] = [];
let nextLabel = '';

const app = uws.App().post('/*', (res, req) => {
  const [check, getHeader] = measureInterleaved([() => framingProblem(req), () => req.getHeader('content-length')], { budgetMs: 3_000 });
  rows.push([nextLabel, (check!.nsPerOp / 1000).toFixed(2), (getHeader!.nsPerOp / 1000).toFixed(2), (check!.nsPerOp / getHeader!.nsPerOp).toFixed(1)]);
  res.end('measured');
});

function send(port: number, headers: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', reject);
    socket.on('data', () => {
      socket.destroy();
      resolve();
    });
    socket.write(`POST /measure HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`);
  });
}

app.listen('127.0.0.1', 0, async (socket) => {
  if (socket === false) throw new Error('cannot listen');
  const port = uws.us_socket_local_port(socket);
  for (const [label, headers] of [['API client, 7 headers', API_HEADERS], ['browser, 15 headers', BROWSER_HEADERS]] as const) {
    nextLabel = label;
    await send(port, headers);
  }
  printTable(['request head', 'framing check µs', 'one getHeader µs', 'ratio'], rows);
  uws.us_listen_socket_close(socket);
});
