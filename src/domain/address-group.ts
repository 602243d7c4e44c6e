import { isIPv4, isIPv6 } from 'node:net';

/**
 * The unit a per-address limit counts: an IPv4 address, or the /64 network of an IPv6 address
 * (one subscriber usually holds a whole /64, so counting single IPv6 addresses would give a client
 * 2^64 budgets). IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
export function addressGroup(address: string): string {
  if (isIPv4(address)) return address;
  const bare = address.split('%')[0]!;
  if (!isIPv6(bare)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped !== null) return mapped[1]!;
  return `${firstFourHextets(bare).join(':')}::/64`;
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
