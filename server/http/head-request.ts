// HEAD is answered wherever GET is (RFC 9110 9.3.2; uptime checkers use it): the GET handler runs
// unchanged with a response whose end() sends the same status and headers, with the Content-Length
// of the body GET would send, and no body. Every answer to a HEAD request must be bodiless (404 and
// 405 included): a body the client does not expect would be read as the start of the next answer.
import type { HttpRequest, HttpResponse, RecognizedString } from './load-uws.js';

type Handler = (res: HttpResponse, req: HttpRequest) => void;

function byteLengthOf(body: RecognizedString | undefined): number {
  if (body === undefined) return 0;
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  return body.byteLength;
}

/**
 * Ends without a body. uWS writes no Content-Length of its own for endWithoutBody(), so ours is the
 * only one; endWithoutBody(n, close) would add a second and then wait for n body bytes. So a close
 * (while draining) is asked for with the header alone, and the client closes.
 */
function endHead(res: HttpResponse, length: number, closeConnection: boolean | undefined): void {
  res.writeHeader('Content-Length', String(length));
  if (closeConnection === true) res.writeHeader('Connection', 'close');
  res.endWithoutBody();
}

// One handler for every HEAD response: native methods are called on the real response.
const HEAD_TRAPS: ProxyHandler<HttpResponse> = {
  get(target, property, receiver) {
    if (property === 'end') {
      return (body?: RecognizedString, closeConnection?: boolean) => {
        endHead(target, byteLengthOf(body), closeConnection);
        return receiver;
      };
    }
    if (property === 'tryEnd') {
      return (body: RecognizedString, totalSize: number) => {
        endHead(target, totalSize > 0 ? totalSize : byteLengthOf(body), false);
        return [true, true];
      };
    }
    const value = Reflect.get(target, property);
    return typeof value === 'function' ? value.bind(target) : value;
  },
};

/** The GET handler, answering HEAD. */
export function answeringHead(handler: Handler): Handler {
  return (res, req) => handler(new Proxy(res, HEAD_TRAPS), req);
}

/** For handlers mounted on any method (404, 405): a HEAD request gets the same answer without its body. */
export function bodilessForHead(handler: Handler): Handler {
  return (res, req) => {
    if (req.getMethod() === 'head') handler(new Proxy(res, HEAD_TRAPS), req);
    else handler(res, req);
  };
}
