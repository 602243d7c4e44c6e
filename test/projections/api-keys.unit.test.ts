import { expect, it } from 'vitest';
import { apiKeysProjection } from '../../projections/api-keys.ts';
import { decideIssueApiKey, decideRevokeApiKey, evolveApiKey } from '../../src/domain/api-keys.ts';

const NOW = new Date('2030-01-15T10:00:05.000Z');
const issued = decideIssueApiKey({ plan: 'free' }, { keyId: 'key_a', secretHash: 'hash-a' }, NOW);

it('finds an issued key by the hash of its secret', () => {
  const state = apiKeysProjection.evolve(apiKeysProjection.initialState(), issued);
  expect(state.bySecretHash.get('hash-a')?.keyId).toBe('key_a');
});

it('forgets a revoked key’s hash but still lists it', () => {
  const [revoked] = decideRevokeApiKey(evolveApiKey(undefined, issued), 'key_a', NOW);
  const state = [issued, revoked!].reduce(apiKeysProjection.evolve, apiKeysProjection.initialState());
  expect(state.bySecretHash.has('hash-a')).toBe(false);
  expect(state.byId.get('key_a')?.revoked).toBe(true);
});

it('ignores pet events', () => {
  const state = apiKeysProjection.evolve(apiKeysProjection.initialState(), {
    type: 'PetCreated',
    data: { id: 1 },
  });
  expect(state.byId.size).toBe(0);
});

it('restores the same keys from its snapshot', () => {
  const state = apiKeysProjection.evolve(apiKeysProjection.initialState(), issued);
  const restored = apiKeysProjection.fromSnapshot(
    JSON.parse(JSON.stringify(apiKeysProjection.toSnapshot(state))),
  );
  expect(restored.bySecretHash.get('hash-a')).toEqual(state.byId.get('key_a'));
});
