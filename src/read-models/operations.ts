import type { Logger } from 'pino';
import type { EventStore, RecordedEvent } from '../application/ports/event-store.ts';
import type {
  Comparison,
  ProjectionStatus,
  ReadModelOperations,
  RebuildStatus,
  SnapshotStatus,
  VerifyReport,
} from '../application/ports/read-models.ts';
import { NotFoundError } from '../shared/errors.ts';
import { compareParts, compareWithFile, type Difference } from './compare-parts.ts';
import { foldBeside } from './fold-beside.ts';
import { eventIdAt, madeFromThisStore, type ReadModel } from './read-model.ts';
import type { ProjectionGroup } from './runner.ts';
import type { SnapshotHeader, SnapshotStore } from './snapshot-file.ts';

/** Lag is counted event by event up to this many; past it, the status says "at least". */
const LAG_COUNT_LIMIT = 100_000;

export type OperationsDependencies = {
  readonly group: ProjectionGroup;
  readonly store: EventStore;
  readonly snapshots: SnapshotStore | undefined;
  readonly logger: Logger;
};

/** Status, rebuild and verification of the read models of this process (the admin endpoints' work). */
export function readModelOperations(deps: OperationsDependencies): ReadModelOperations {
  const { group, store, snapshots } = deps;
  const find = (name: string): ReadModel<unknown> => {
    const found = group.readModels.find((readModel) => readModel.projection.name === name);
    // A name is repeated up to 100 characters: GraphQL's argument may be as long as the body.
    const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
    if (found === undefined)
      throw new NotFoundError(`There is no projection named ${JSON.stringify(shown)}.`);
    return found;
  };
  // A verification folds every event afresh: requests for one projection while it runs share it,
  // rather than each holding a whole fold in memory (an admin's retry loop could exhaust it).
  const verifying = new Map<string, Promise<VerifyReport>>();
  return {
    status: () =>
      Promise.all(
        group.readModels.map((readModel) =>
          projectionStatus(store, snapshots, {
            name: readModel.projection.name,
            version: readModel.projection.version,
            checkpoint: readModel.checkpoint,
            interimFromVersion: readModel.interimFromVersion,
            passedOver: readModel.passedOver,
            rebuild: group.rebuildStatus(readModel.projection.name),
          }),
        ),
      ),
    rebuild: (name) => group.rebuild(find(name).projection.name)!,
    verify: (name) => {
      const readModel = find(name);
      let running = verifying.get(readModel.projection.name);
      if (running === undefined) {
        running = verifyLive(deps, readModel).finally(() => verifying.delete(readModel.projection.name));
        verifying.set(readModel.projection.name, running);
      }
      return running;
    },
  };
}

/** One projection's status from what the caller knows of it, the store (lag) and its snapshot file. */
export async function projectionStatus(
  store: EventStore,
  snapshots: SnapshotStore | undefined,
  readModel: {
    readonly name: string;
    readonly version: number;
    readonly checkpoint: bigint | undefined;
    readonly interimFromVersion?: number | undefined;
    /** The types the read model passed over, with their first positions (ReadModel.passedOver). */
    readonly passedOver?: ReadonlyMap<string, bigint>;
    /**
     * The types this release knows: events of any other type after the checkpoint, which a start
     * would pass over, are reported.
     */
    readonly knownEventTypes?: ReadonlySet<string> | undefined;
    readonly rebuild?: RebuildStatus | undefined;
    /** Why a start would not restore the snapshot file (the offline status checks it as a start does). */
    readonly refused?: string | undefined;
  },
): Promise<ProjectionStatus> {
  const header = await snapshots?.header(readModel.name);
  const nowMs = Date.now();
  const unknown = new Map(readModel.passedOver);
  const known = readModel.knownEventTypes;
  const lag = await lagAfter(store, readModel.checkpoint, nowMs, (event) => {
    if (known !== undefined && !known.has(event.type) && !unknown.has(event.type))
      unknown.set(event.type, event.position);
  });
  return {
    name: readModel.name,
    version: readModel.version,
    checkpoint: readModel.checkpoint?.toString() ?? null,
    lag,
    snapshot: header?.ok === true ? snapshotStatus(header.header, readModel.refused, nowMs) : null,
    unreadableSnapshot: header?.ok === false ? (readModel.refused ?? header.reason) : null,
    interimFromVersion: readModel.interimFromVersion ?? null,
    unknownEvents: [...unknown].map(([type, position]) => ({ type, firstPosition: position.toString() })),
    rebuild: readModel.rebuild ?? null,
  };
}

/** The file as its header describes it. */
function snapshotStatus(header: SnapshotHeader, refused: string | undefined, nowMs: number): SnapshotStatus {
  return {
    version: header.version,
    checkpoint: header.checkpoint,
    savedAt: header.savedAt,
    ageSeconds: Math.max(0, Math.round((nowMs - Date.parse(header.savedAt)) / 1000)),
    ...(refused !== undefined && { refused }),
  };
}

async function lagAfter(
  store: EventStore,
  checkpoint: bigint | undefined,
  nowMs: number,
  onEvent: (event: RecordedEvent) => void,
) {
  let events = 0;
  let oldest: string | undefined;
  for await (const event of store.readAll({
    ...(checkpoint === undefined ? {} : { after: checkpoint }),
    maxCount: LAG_COUNT_LIMIT + 1,
  })) {
    oldest ??= event.metadata.occurredAt;
    events += 1;
    if (events <= LAG_COUNT_LIMIT) onEvent(event);
  }
  const seconds = oldest === undefined ? 0 : Math.max(0, (nowMs - Date.parse(oldest)) / 1000);
  return {
    events: Math.min(events, LAG_COUNT_LIMIT),
    capped: events > LAG_COUNT_LIMIT,
    seconds: Math.round(seconds * 10) / 10,
  };
}

/**
 * Folds every event afresh beside the live read model, and compares the fold with the snapshot
 * file when it reaches the snapshot's checkpoint, then with the live read model once it has caught
 * up with it.
 */
async function verifyLive(deps: OperationsDependencies, live: ReadModel<unknown>): Promise<VerifyReport> {
  const { projection } = live;
  const stored = await snapshotToCompare(deps.snapshots, live, eventIdAt(deps.store));
  let snapshot = Promise.resolve<Comparison>(
    'parts' in stored ? { result: 'not compared', reason: 'the fold never reached its checkpoint' } : stored,
  );
  const liveComparison = await foldBeside({
    store: deps.store,
    live,
    waitFor: (position) => deps.group.waitFor(position),
    logger: deps.logger,
    ...('parts' in stored && {
      stopover: {
        position: stored.checkpoint,
        reached: (fresh) =>
          (snapshot = compared(compareWithFile(projection, fresh.state, stored.parts), fresh.checkpoint)),
      },
    }),
    caughtUp: (fresh) =>
      compared(
        compareParts(projection.toSnapshot(fresh.state), projection.toSnapshot(live.state)),
        fresh.checkpoint,
      ),
  });
  return {
    name: projection.name,
    version: projection.version,
    live: await liveComparison,
    snapshot: await snapshot,
  };
}

type SnapshotToCompare =
  | { readonly checkpoint: bigint; readonly parts: Iterable<unknown> }
  | Extract<Comparison, { result: 'not compared' | 'refused' }>;

/**
 * The snapshot file's parts, once proven (its file, and that it was made from this store) and of
 * this version; else why it is not compared.
 */
export async function snapshotToCompare(
  snapshots: SnapshotStore | undefined,
  live: Pick<ReadModel<unknown>, 'projection' | 'checkpoint'>,
  idAt: (position: bigint) => Promise<string | undefined>,
): Promise<SnapshotToCompare> {
  const notCompared = (reason: string) => ({ result: 'not compared', reason }) as const;
  if (snapshots === undefined) return notCompared('this process keeps no snapshots');
  const loaded = await snapshots.load(live.projection.name);
  if (!loaded.ok)
    return 'missing' in loaded ? notCompared(loaded.reason) : { result: 'refused', reason: loaded.reason };
  if (loaded.snapshot.version !== live.projection.version) {
    return notCompared(`the snapshot is of version ${loaded.snapshot.version}`);
  }
  const checkpoint = BigInt(loaded.snapshot.checkpoint);
  // Before "ahead": a snapshot past the store's last event was not written by another process.
  if (!(await madeFromThisStore(loaded.snapshot, idAt))) {
    return { result: 'refused', reason: 'the snapshot was not made from this event store' };
  }
  if (live.checkpoint === undefined || checkpoint > live.checkpoint) {
    return notCompared('the snapshot is ahead of this read model (another process wrote it)');
  }
  return { checkpoint, parts: loaded.snapshot.parts };
}

async function compared(
  comparison: Promise<Difference | undefined>,
  checkpoint: bigint | undefined,
): Promise<Comparison> {
  const at = checkpoint?.toString() ?? null;
  const difference = await comparison;
  return difference === undefined
    ? { result: 'same', checkpoint: at }
    : { result: 'different', checkpoint: at, ...difference };
}
