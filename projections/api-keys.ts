import { type ApiKey, type ApiKeyEvent, API_KEY_EVENT_TYPES, evolveApiKey } from '../src/domain/api-keys.ts';
import type { ProjectedEvent, Projection } from './projection.ts';

/**
 * The API-key read model: every key by id (for operators), and the keys that may authenticate by
 * the SHA-256 of their secret (for the guard: one Map lookup per request). Revoked keys leave
 * `bySecretHash` at once but stay in `byId`, so that `keys list` still shows them.
 */
export type ApiKeysState = {
  readonly byId: Map<string, ApiKey>;
  readonly bySecretHash: Map<string, ApiKey>;
};

export const apiKeysProjection: Projection<ApiKeysState> = {
  name: 'api-keys',
  version: 1,
  initialState,
  evolve(state: ApiKeysState, event: ProjectedEvent): ApiKeysState {
    if (!API_KEY_EVENT_TYPES.has(event.type)) return state;
    const keyId = event.data.keyId as string;
    const next = evolveApiKey(state.byId.get(keyId), event as ApiKeyEvent);
    if (next !== undefined) put(state, next);
    return state;
  },
  toSnapshot(state: ApiKeysState): ApiKey[] {
    return [...state.byId.values()];
  },
  fromSnapshot(raw: unknown): ApiKeysState {
    const state = initialState();
    for (const key of raw as ApiKey[]) put(state, key);
    return state;
  },
};

function initialState(): ApiKeysState {
  return { byId: new Map(), bySecretHash: new Map() };
}

function put(state: ApiKeysState, key: ApiKey): void {
  state.byId.set(key.keyId, key);
  if (key.revoked) state.bySecretHash.delete(key.secretHash);
  else state.bySecretHash.set(key.secretHash, key);
}
