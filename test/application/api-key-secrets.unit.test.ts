import { expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/application/api-key-secrets.ts';

it('generates a psk_ key of 32 random bytes and a key_ id', () => {
  const { keyId, secret } = generateApiKey();
  expect(secret).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
  expect(keyId).toMatch(/^key_[0-9a-f]{16}$/);
});

it('generates a different key each time', () => {
  expect(generateApiKey().secret).not.toBe(generateApiKey().secret);
});

it('stores the SHA-256 of a key in base64url', () => {
  expect(hashApiKey('psk_example')).toBe('Gy4BDB0W-o1su47gdpNpXJ1Km7GO8WwFzX9eTPGUQOQ');
});

it('calls a token without the prefix malformed', () => {
  expect(isWellFormedApiKey(`sk_${'A'.repeat(43)}`)).toBe(false);
});
