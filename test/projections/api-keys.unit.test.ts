import { expect, it } from 'vitest';
import { apiKeysProjection, type ApiKeysState } from '../../projections/api-keys.ts';
import {
  type ApiKeyEvent,
  decideIssueApiKey,
  decideRevokeApiKey,
  decideRotateApiKey,
  evolveApiKey,
} from '../../src/domain/api-keys.ts';

const NOW = new Date('2030-01-15T10:00:05.000Z');
const issued = decideIssueApiKey({ plan: 'free' }, { keyId: 'key_a', secretHash: 'hash-a' }, NOW);

/** The projection after these events, each at the next revision of the key's stream. */
function given(...events: { type: string; data: Readonly<Record<string, unknown>> }[]): ApiKeysState {
  return events.reduce(
    (state, event, revision) => apiKeysProjection.evolve(state, { ...event, revision: BigInt(revision) }),
    apiKeysProjection.initialState(),
  );
}

it('finds an issued key by the hash of its secret', () => {
  expect(given(issued).bySecretHash.get('hash-a')?.keyId).toBe('key_a');
});

it('forgets a revoked key’s hash but still lists it', () => {
  const [revoked] = decideRevokeApiKey(evolveApiKey(undefined, issued), 'key_a', NOW);
  const state = given(issued, revoked!);
  expect(state.bySecretHash.has('hash-a')).toBe(false);
  expect(state.byId.get('key_a')?.revoked).toBe(true);
});

it('finds a rotated key by its new secret and by the one it replaced', () => {
  const rotated = decideRotateApiKey(evolveApiKey(undefined, issued), 'key_a', 'hash-b', 3_600_000, NOW);
  const state = given(issued, rotated);
  expect([state.bySecretHash.get('hash-a')?.keyId, state.bySecretHash.get('hash-b')?.keyId]).toEqual([
    'key_a',
    'key_a',
  ]);
});

it('forgets the secret of two rotations ago', () => {
  const once = decideRotateApiKey(evolveApiKey(undefined, issued), 'key_a', 'hash-b', 0, NOW);
  const afterOnce = [issued, once].reduce(evolveApiKey, undefined as never) as ReturnType<
    typeof evolveApiKey
  >;
  const twice = decideRotateApiKey(afterOnce, 'key_a', 'hash-c', 0, NOW);
  const state = given(issued, once, twice as ApiKeyEvent);
  expect([...state.bySecretHash.keys()].sort()).toEqual(['hash-b', 'hash-c']);
});

it('ignores pet events', () => {
  expect(given({ type: 'PetCreated', data: { id: 1 } }).byId.size).toBe(0);
});

it('restores the same keys from its snapshot', () => {
  const state = given(issued);
  const restored = apiKeysProjection.fromSnapshot(
    JSON.parse(JSON.stringify([...apiKeysProjection.toSnapshot(state)])),
  );
  expect(restored.bySecretHash.get('hash-a')).toEqual(state.byId.get('key_a'));
});
