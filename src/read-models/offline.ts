import type { Logger } from 'pino';
import type { Projection } from '../../projections/projection.ts';
import type { EventStore } from '../application/ports/event-store.ts';
import type { ProjectionStatus, VerifyReport } from '../application/ports/read-models.ts';
import { compareWithFile } from './compare-parts.ts';
import { type FoldProgress, foldBeside } from './fold-beside.ts';
import { projectionStatus, snapshotToCompare } from './operations.ts';
import { eventIdAt, ReadModel, snapshotRefusal } from './read-model.ts';
import type { SnapshotStore } from './snapshot-file.ts';

/**
 * The operators' commands without a server: from the store and the snapshot files alone. What a
 * server would start from is its snapshot, so that is the read model they see.
 */

const NO_SERVER = 'no server asked: pass --url to compare a running server’s read model';

/**
 * Each projection as a server would start it now: from its snapshot (if of this version, and proven
 * as a server proves it: the file checks out and was made from this store), then the store.
 */
export function offlineStatus(
  store: EventStore,
  snapshots: SnapshotStore,
  projections: readonly Projection<unknown>[],
): Promise<ProjectionStatus[]> {
  const idAt = eventIdAt(store);
  return Promise.all(
    projections.map(async (projection) => {
      const { name, version } = projection;
      const loaded = await snapshots.load(name);
      const refused = loaded.ok
        ? await snapshotRefusal(projection, loaded.snapshot, idAt)
        : 'missing' in loaded
          ? undefined
          : loaded.reason;
      const restored = loaded.ok && refused === undefined ? loaded.snapshot : undefined;
      return projectionStatus(store, snapshots, {
        name,
        version,
        checkpoint: restored && BigInt(restored.checkpoint),
        interimFromVersion: restored?.version === version ? undefined : restored?.version,
        knownEventTypes: projection.knownEventTypes,
        refused,
      });
    }),
  );
}

/** Folds every event into a new read model and saves it as the projection's snapshot; rejects if it cannot. */
export async function rebuildOffline<State>(
  store: EventStore,
  snapshots: SnapshotStore,
  projection: Projection<State>,
  logger: Logger,
  onProgress: (progress: FoldProgress) => void,
): Promise<{ events: number; checkpoint: bigint | undefined }> {
  const head = await store.headPosition();
  let events = 0;
  const fresh = await foldBeside({
    store,
    live: { projection, checkpoint: head },
    snapshots,
    waitFor: async () => {}, // the head does not move on: never waited for
    logger,
    onProgress: (progress) => {
      events = progress.events;
      onProgress(progress);
    },
    caughtUp: (model) => model,
  });
  await fresh.writeSnapshot();
  return { events, checkpoint: fresh.checkpoint };
}

/** Folds every event up to the snapshot's checkpoint and compares the fold with the snapshot. */
export async function verifyOffline<State>(
  store: EventStore,
  snapshots: SnapshotStore,
  projection: Projection<State>,
  logger: Logger,
): Promise<VerifyReport> {
  const report = (snapshot: VerifyReport['snapshot']): VerifyReport => ({
    name: projection.name,
    version: projection.version,
    live: { result: 'not compared', reason: NO_SERVER },
    snapshot,
  });
  const stored = await snapshotToCompare(
    snapshots,
    { projection, checkpoint: await store.headPosition() },
    eventIdAt(store),
  );
  if (!('parts' in stored)) return report(stored);
  const restored = new ReadModel(projection, snapshots, logger);
  if ((await restored.restore(eventIdAt(store))) === 'from-events') {
    return report({ result: 'refused', reason: 'the snapshot was not made from this event store' });
  }
  const difference = await foldBeside({
    store,
    live: restored,
    waitFor: async () => {},
    logger,
    caughtUp: (fresh) => compareWithFile(projection, fresh.state, stored.parts),
  });
  const checkpoint = stored.checkpoint.toString();
  return report(
    difference === undefined
      ? { result: 'same', checkpoint }
      : { result: 'different', checkpoint, ...difference },
  );
}
