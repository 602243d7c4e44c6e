import { isIPv4, isIPv6 } from 'node:net';

/**
 * The unit a per-address limit counts: an IPv4 address, or the /64 network of an IPv6 address
 * (one subscriber usually holds a whole /64, so counting single IPv6 addresses would give a client
 * 2^64 budgets). IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
export function addressGroup(address: string): string {
  const ip = withoutPort(address);
  if (isIPv4(ip)) return ip;
  const bare = ip.split('%')[0]!;
  if (!isIPv6(bare)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped !== null) return mapped[1]!;
  return `${firstFourHextets(bare).join(':')}::/64`;
}

/**
 * Some proxies write the client's port into X-Forwarded-For (`203.0.113.9:51234`,
 * `[2001:db8::1]:443`): each connection of one client would otherwise count as another address.
 */
function withoutPort(address: string): string {
  const ipv4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(address);
  if (ipv4 !== null) return ipv4[1]!;
  const ipv6 = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  return ipv6 === null ? address : ipv6[1]!;
}

function firstFourHextets(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap(hextetsOf));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const full = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return full.slice(0, 4).map((hextet) => Number.parseInt(hextet, 16).toString(16));
}

/** An embedded IPv4 tail (`::1.2.3.4`) holds two hextets. */
function hextetsOf(group: string): string[] {
  return group.includes('.') ? ['0', '0'] : [group];
}
