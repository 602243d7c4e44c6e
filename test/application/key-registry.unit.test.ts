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
