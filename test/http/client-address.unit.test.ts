import type { IncomingMessage } from 'node:http';
import { expect, it } from 'vitest';
import { clientAddress, proxyTrust } from '../../src/http/client-address.ts';

const request = (remoteAddress: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

const trust = proxyTrust(['10.0.0.1', '192.168.0.0/16', 'fd00::/8']);

it('believes X-Forwarded-For from no one when no proxy is trusted', () => {
  expect(clientAddress(request('198.51.100.7', '203.0.113.9'), proxyTrust(false))).toBe('198.51.100.7');
});

it('takes the nearest hop a trusted proxy did not send, not the left-most one the client wrote', () => {
  expect(clientAddress(request('10.0.0.1', '1.1.1.1, 203.0.113.9'), trust)).toBe('203.0.113.9');
  expect(clientAddress(request('10.0.0.1', '1.1.1.1, 203.0.113.9, 192.168.4.4'), trust)).toBe('203.0.113.9');
});

it('ignores X-Forwarded-For sent by a peer that is not a trusted proxy', () => {
  expect(clientAddress(request('198.51.100.7', '203.0.113.9'), trust)).toBe('198.51.100.7');
});

it('trusts IPv6 ranges and IPv4-mapped peers', () => {
  expect(clientAddress(request('fd00::5', '2001:db8::1'), trust)).toBe('2001:db8::1');
  expect(clientAddress(request('::ffff:10.0.0.1', '203.0.113.9'), trust)).toBe('203.0.113.9');
});
