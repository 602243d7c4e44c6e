import { expect, it } from 'vitest';
import { generateApiKey } from '../../src/application/api-key-secrets.ts';
import { KeyRegistry } from '../../src/application/key-registry.ts';
import type { ApiKeyReadModel } from '../../src/application/ports/read-models.ts';

/** A registry that knows no key, over a store that cannot tell its head. */
const noKeys: ApiKeyReadModel = {
  byId: () => undefined,
  bySecretHash: () => undefined,
  all: () => [],
  waitFor: async () => {},
};

it('answers a secret it does not know as unknown when the store cannot tell its head', async () => {
  const registry = new KeyRegistry(noKeys, () => Promise.reject(new Error('UnavailableError')));
  await expect(registry.authenticateCaughtUp(generateApiKey().secret, () => 0)).resolves.toBeUndefined();
});

/** A store head that takes a turn to read and is one further at each read; each read's start recorded. */
function countingHead() {
  const reads: number[] = [];
  const headPosition = async () => {
    reads.push(reads.length + 1);
    const head = BigInt(reads.length);
    await new Promise((resolve) => setImmediate(resolve));
    return head;
  };
  return { reads, headPosition };
}

it('shares head reads among requests with unknown keys: fifty at once cost the store two reads', async () => {
  const { reads, headPosition } = countingHead();
  const registry = new KeyRegistry(noKeys, headPosition);
  const secrets = Array.from({ length: 50 }, () => generateApiKey().secret);
  await Promise.all(secrets.map((secret) => registry.authenticateCaughtUp(secret, () => 0)));
  expect(reads).toEqual([1, 2]);
});

it('waits for a head read that began after the request came, not one already in flight', async () => {
  const { headPosition } = countingHead();
  const waitedFor: bigint[] = [];
  const registry = new KeyRegistry(
    { ...noKeys, waitFor: async (at) => void waitedFor.push(at) },
    headPosition,
  );
  const first = registry.authenticateCaughtUp(generateApiKey().secret, () => 0);
  const second = registry.authenticateCaughtUp(generateApiKey().secret, () => 0);
  await Promise.all([first, second]);
  expect(waitedFor).toEqual([1n, 2n]);
});
