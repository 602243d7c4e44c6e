import { pino } from 'pino';
import { apiKeysProjection } from '../../projections/api-keys.ts';
import { type EventStore, UnreadableEventError } from '../application/ports/event-store.ts';
import type { ApiKeyReadModel } from '../application/ports/read-models.ts';
import type { Config } from '../config.ts';
import { apiKeyReadModel } from '../read-models/api-key-read-model.ts';
import { ProjectionGroup } from '../read-models/runner.ts';
import { dataDirSnapshots, readOnly } from '../read-models/snapshot-file.ts';

/**
 * The API keys, kept current while the command runs, so that events can name the key that acted:
 * from the server's snapshot when there is one (never written by the CLI), then the store. An event
 * the store cannot read stops the fold there: the keys are then those of the events before it, and
 * `unreadable` says which event it was (past it, a key's name may be unknown).
 */
export async function followApiKeys(
  store: EventStore,
  config: Pick<Config, 'dataDir'>,
): Promise<{
  readonly keys: ApiKeyReadModel;
  readonly unreadable: UnreadableEventError | undefined;
  stop(): Promise<void>;
}> {
  const group = new ProjectionGroup({
    store,
    logger: pino({ level: 'silent' }),
    snapshots: readOnly(dataDirSnapshots(config.dataDir)),
  });
  const readModel = group.add(apiKeysProjection);
  const unreadable = await group.start().then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof UnreadableEventError) return error;
      throw error;
    },
  );
  return {
    keys: apiKeyReadModel(readModel, (position) => group.waitFor(position)),
    unreadable,
    stop: () => group.stop(),
  };
}
