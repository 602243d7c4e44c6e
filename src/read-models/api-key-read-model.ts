import type { ApiKeysState } from '../../projections/api-keys.ts';
import type { ApiKeyReadModel } from '../application/ports/read-models.ts';
import type { ReadModel } from './read-model.ts';

/** The application's ApiKeyReadModel over the api-keys projection's state. */
export function apiKeyReadModel(
  readModel: ReadModel<ApiKeysState>,
  waitFor: (position: bigint) => Promise<void>,
): ApiKeyReadModel {
  return {
    byId: (keyId) => readModel.state.byId.get(keyId),
    bySecretHash: (secretHash) => readModel.state.bySecretHash.get(secretHash),
    all: () => [...readModel.state.byId.values()],
    waitFor,
  };
}
