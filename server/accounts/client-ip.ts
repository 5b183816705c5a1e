// Which address a request comes from. The socket's address, unless TRUST_PROXY names the proxies
// in front of us: then X-Forwarded-For is read right to left, skipping trusted proxies, and the
// first address a trusted proxy vouched for is the client. Entries further left were written by
// the client itself and are never believed.
import { BlockList, isIP, SocketAddress } from 'node:net';

export interface ProxyTrust {
  /** False when TRUST_PROXY is empty: X-Forwarded-For is ignored. */
  readonly enabled: boolean;
  trusts(ip: string): boolean;
}

const NAMED_RANGES: Record<string, ReadonlyArray<[string, number]>> = {
  loopback: [['127.0.0.0', 8], ['::1', 128]],
  linklocal: [['169.254.0.0', 16], ['fe80::', 10]],
  uniquelocal: [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['fc00::', 7]],
};

/** Parses TRUST_PROXY: comma-separated IPs, CIDRs, or loopback/linklocal/uniquelocal. Throws on a bad entry. */
export function parseTrustProxy(value: string | undefined): ProxyTrust {
  const list = new BlockList();
  let count = 0;
  for (const raw of (value ?? '').split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const named = NAMED_RANGES[entry.toLowerCase()];
    if (named !== undefined) {
      for (const [net, bits] of named) list.addSubnet(net, bits, isIP(net) === 6 ? 'ipv6' : 'ipv4');
      count++;
      continue;
    }
    const slash = entry.indexOf('/');
    const address = normalizeIp(slash < 0 ? entry : entry.slice(0, slash));
    const family = address === undefined ? 0 : isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bits = slash < 0 ? maxBits : Number(entry.slice(slash + 1));
    if (address === undefined || family === 0 || !Number.isInteger(bits) || bits < 0 || bits > maxBits
      || (slash >= 0 && !/^\d{1,3}$/.test(entry.slice(slash + 1)))) {
      throw new Error(`TRUST_PROXY: "${entry}" is not an IP address, a CIDR, or one of loopback, linklocal, uniquelocal`);
    }
    list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
    count++;
  }
  const enabled = count > 0;
  return {
    enabled,
    trusts(ip: string): boolean {
      const family = isIP(ip);
      return enabled && family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}

/**
 * Canonical text of an address, or undefined if it is not one: IPv4 dotted quad (IPv4-mapped IPv6
 * included), IPv6 compressed lower case. Accepts `[v6]`, `[v6]:port`, `v4:port` and zone ids.
 */
export function normalizeIp(text: string): string | undefined {
  let s = text.trim();
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end < 0) return undefined;
    s = s.slice(1, end);
  } else if (s.indexOf(':') > 0 && s.indexOf(':') === s.lastIndexOf(':') && s.includes('.')) {
    s = s.slice(0, s.indexOf(':')); // v4:port
  }
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const family = isIP(s);
  if (family === 4) return s;
  if (family !== 6) return undefined;
  const canonical = new SocketAddress({ address: s, family: 'ipv6' }).address.toLowerCase();
  if (canonical.startsWith('::ffff:') && isIP(canonical.slice(7)) === 4) return canonical.slice(7);
  return canonical;
}

/** The client's address for this request (see the module comment). */
export function clientIp(socketIp: string, forwardedFor: string | undefined, trust: ProxyTrust): string {
  const socket = normalizeIp(socketIp) ?? socketIp;
  if (!trust.enabled || forwardedFor === undefined || forwardedFor === '' || !trust.trusts(socket)) return socket;
  const hops = forwardedFor.split(',');
  let believed = socket;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]!);
    // A trusted proxy wrote something that is not an address: stop at the last hop we believed.
    if (hop === undefined) return believed;
    believed = hop;
    if (!trust.trusts(hop)) return hop;
  }
  return believed; // every hop was a trusted proxy: the leftmost one is the origin
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
