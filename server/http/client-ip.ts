// The client's IP: the socket's peer, unless that peer is a proxy listed in TRUST_PROXY, in which
// case X-Forwarded-For is read from the right, skipping trusted proxies, and the first untrusted
// address is the client (a client can prepend anything, so only proxy-appended entries count).
// Every X-Forwarded-For header line counts, in order, as one comma list (RFC 9110 5.3): a proxy
// that appends a line of its own (HAProxy's `option forwardfor`) leaves a client's line first.
import { BlockList, isIP } from 'node:net';
import type { HttpRequest, HttpResponse } from './load-uws.js';

/** uWS prints IPv4 peers of a dual-stack socket in long IPv6 form ("0000:...:ffff:7f00:0001"). */
export function normalizeAddress(text: string): string {
  if (isIP(text) !== 6) return text;
  const lower = text.toLowerCase();
  const mapped = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mapped !== null) {
    const high = parseInt(mapped[1]!, 16);
    const low = parseInt(mapped[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return dotted !== null ? dotted[1]! : lower;
}

export class ClientIpResolver {
  readonly #trusted: BlockList | null;

  constructor(trustProxy: readonly string[]) {
    if (trustProxy.length === 0) {
      this.#trusted = null;
      return;
    }
    const list = new BlockList();
    for (const entry of trustProxy) {
      const [address, bits] = entry.split('/') as [string, string | undefined];
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) list.addAddress(address, family);
      else list.addSubnet(address, Number(bits), family);
    }
    this.#trusted = list;
  }

  #isTrusted(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.#trusted!.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }

  /** The client address of a request, read while its handler runs (uWS `req` is valid only then). */
  resolveRequest(res: HttpResponse, req: HttpRequest): string {
    const peer = normalizeAddress(Buffer.from(res.getRemoteAddressAsText()).toString());
    if (this.#trusted === null || !this.#isTrusted(peer)) return peer;
    return this.#walk(peer, forwardedForOf(req));
  }

  /** `peerText` is the socket's address as text; `forwardedFor` every X-Forwarded-For line joined by commas, or ''. */
  resolve(peerText: string, forwardedFor: string): string {
    const peer = normalizeAddress(peerText);
    if (this.#trusted === null || !this.#isTrusted(peer)) return peer;
    return this.#walk(peer, forwardedFor);
  }

  /** From the right, the first hop that is not a trusted proxy (a trusted `peer` sent `forwardedFor`). */
  #walk(peer: string, forwardedFor: string): string {
    if (forwardedFor === '') return peer;
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalizeAddress(hops[i]!.trim());
      if (isIP(hop) === 0) return peer;
      if (!this.#isTrusted(hop)) return hop;
    }
    return normalizeAddress(hops[0]!.trim());
  }
}

// Filled by forEach's callback without a closure per request.
let lines = '';
function collectForwardedFor(name: string, value: string): void {
  if (name === 'x-forwarded-for') lines = lines === '' ? value : `${lines},${value}`;
}

/** Every X-Forwarded-For line of `req`, in order, as one comma list ('' when none); uWS's getHeader gives the first only. */
export function forwardedForOf(req: HttpRequest): string {
  lines = '';
  req.forEach(collectForwardedFor);
  const joined = lines;
  lines = '';
  return joined;
}

/**
 * The bucket an address is limited under: IPv4 as is; IPv6 by its /64, because one subscriber
 * usually holds a whole /64 and could otherwise rotate through it.
 */
export function limitKeyForIp(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':') + '::/64';
}
