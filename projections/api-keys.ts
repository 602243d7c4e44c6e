import { KNOWN_EVENT_TYPES } from '../src/domain/event-types.ts';
import { type ApiKey, type ApiKeyEvent, API_KEY_EVENT_TYPES, evolveApiKey } from '../src/domain/api-keys.ts';
import type { ProjectedEvent, Projection } from './projection.ts';

/**
 * The API-key read model: every key by id (for operators), and the keys that may authenticate by
 * the SHA-256 of their secret (for the guard: one Map lookup per request). A rotated key is found
 * by its new secret and, until its grace ends, by its old one (`acceptsSecret` decides, with the
 * clock); the secret before that leaves the map. Revoked keys leave `bySecretHash` at once but
 * stay in `byId`, so that `keys list` still shows them.
 */
export type ApiKeysState = {
  readonly byId: Map<string, ApiKey>;
  readonly bySecretHash: Map<string, ApiKey>;
};

export const apiKeysProjection: Projection<ApiKeysState> = {
  name: 'api-keys',
  version: 2,
  knownEventTypes: KNOWN_EVENT_TYPES,
  initialState,
  evolve(state: ApiKeysState, event: ProjectedEvent): ApiKeysState {
    if (!API_KEY_EVENT_TYPES.has(event.type)) return state;
    const keyId = event.data.keyId as string;
    const before = state.byId.get(keyId);
    const next = evolveApiKey(before, event as unknown as ApiKeyEvent);
    if (next !== undefined) put(state, next, before);
    return state;
  },
  toSnapshot(state: ApiKeysState): ApiKey[] {
    return [...state.byId.values()];
  },
  fromSnapshot(parts: Iterable<unknown>): ApiKeysState {
    const state = initialState();
    for (const key of parts as Iterable<ApiKey>) put(state, key, undefined);
    return state;
  },
};

function initialState(): ApiKeysState {
  return { byId: new Map(), bySecretHash: new Map() };
}

function put(state: ApiKeysState, key: ApiKey, before: ApiKey | undefined): void {
  state.byId.set(key.keyId, key);
  const hashes = key.revoked ? [] : [key.secretHash, key.previousSecretHash];
  for (const hash of [before?.secretHash, before?.previousSecretHash]) {
    if (hash !== undefined && !hashes.includes(hash)) state.bySecretHash.delete(hash);
  }
  for (const hash of hashes) if (hash !== undefined) state.bySecretHash.set(hash, key);
}
