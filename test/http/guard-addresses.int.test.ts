import { afterEach, beforeEach, expect, it } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../support/guarded-app.ts';

/** Per-address limits behind a trusted proxy (TRUST_PROXY) and for IPv6 clients. */

let service: GuardedApp;

beforeEach(async () => {
  service = await startGuardedApp({
    clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)),
    env: { TRUST_PROXY: '10.0.0.1' },
  });
});
afterEach(async () => {
  await service.close();
});

const withoutKey = (remoteAddress: string, forwardedFor?: string) =>
  service.app
    .inject({
      method: 'GET',
      url: '/v1/pets',
      remoteAddress,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    })
    .then((response) => response.statusCode);

it('counts a client behind the trusted proxy by the address the proxy saw, whatever it writes before it', async () => {
  for (let i = 0; i < 20; i++) expect(await withoutKey('10.0.0.1', `198.51.100.${i}, 203.0.113.9`)).toBe(401);
  expect(await withoutKey('10.0.0.1', '198.51.100.99, 203.0.113.9')).toBe(429);
  expect(await withoutKey('10.0.0.1', '203.0.113.10')).toBe(401);
});

it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
  for (let i = 0; i < 20; i++) expect(await withoutKey('192.0.2.5', `198.51.100.${i}`)).toBe(401);
  expect(await withoutKey('192.0.2.5', '198.51.100.99')).toBe(429);
});

it('counts every IPv6 address of one /64 as one client', async () => {
  for (let i = 0; i < 20; i++) expect(await withoutKey(`2001:db8:1:2::${i.toString(16)}`)).toBe(401);
  expect(await withoutKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(429);
  expect(await withoutKey('2001:db8:1:3::1')).toBe(401);
});
