import type { IncomingMessage } from 'node:http';
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Whether `address`, the sender of a request or of one X-Forwarded-For hop, is a trusted proxy. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * The trust function for Fastify's `trustProxy` (TRUST_PROXY's addresses and CIDR ranges), or
 * false when there are none. Only hops sent by a listed proxy are believed, so a client cannot
 * choose its own address by writing X-Forwarded-For.
 */
export function proxyTrust(proxies: false | readonly string[]): ProxyTrust | false {
  if (proxies === false) return false;
  const trusted = new BlockList();
  for (const entry of proxies) {
    const [address = '', prefix] = entry.split('/');
    const family = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    if (isIPv4(address)) return trusted.check(address, 'ipv4');
    return isIPv6(address) && trusted.check(address, 'ipv6');
  };
}

/**
 * The client address as Fastify's `request.ip` derives it (proxy-addr's rule: the nearest hop not
 * sent by a trusted proxy), for requests Fastify answers before building its own request object.
 */
export function clientAddress(raw: IncomingMessage, trust: ProxyTrust | false): string {
  let address = raw.socket.remoteAddress ?? '';
  const header = raw.headers['x-forwarded-for'];
  if (trust === false || header === undefined) return address;
  const hops = String(header)
    .split(',')
    .map((hop) => hop.trim())
    .reverse();
  for (let hop = 0; hop < hops.length && trust(address, hop); hop++) address = hops[hop]!;
  return address;
}
