import { expect, it } from 'vitest';
import { bearerToken } from '../../src/http/guard.ts';

it('reads the token of a Bearer header', () => {
  expect(bearerToken('Bearer psk_abc')).toBe('psk_abc');
});

it('reads the scheme in any case', () => {
  expect(bearerToken('BEARER psk_abc')).toBe('psk_abc');
});

it('calls an empty Bearer token empty, so it is answered as a malformed key', () => {
  expect(bearerToken('Bearer')).toBe('');
});

it('sees no bearer key in another scheme', () => {
  expect(bearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
});
