import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petListProjection } from '../../projections/pet-list.ts';
import type { Projection } from '../../projections/projection.ts';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { offlineStatus } from '../../src/read-models/offline.ts';
import { readModelOperations } from '../../src/read-models/operations.ts';
import { ProjectionGroup } from '../../src/read-models/runner.ts';
import { snapshotDirectory, type SnapshotStore } from '../../src/read-models/snapshot-file.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { storeWith } from '../support/store-with.ts';

type Seen = { seen: string[] };

/** Remembers every event type in order; version 2 writes them in lower case, which tells the versions apart. */
function recording(version: number, servesSnapshotsOf?: number[]): Projection<Seen> {
  return {
    name: 'recording',
    version,
    ...(servesSnapshotsOf && { servesSnapshotsOf }),
    initialState: () => ({ seen: [] }),
    evolve: (state, event) => ({
      seen: [...state.seen, version === 1 ? event.type : event.type.toLowerCase()],
    }),
    toSnapshot: (state) => [state],
    fromSnapshot: (parts) => [...parts][0] as Seen,
  };
}

const logger = pino({ level: 'silent' });
let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
let snapshots: SnapshotStore;

beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  snapshots = snapshotDirectory(path.join(temp.dir, 'snapshots'));
});
afterEach(async () => {
  await store.close();
  temp.remove();
});

async function append(...types: string[]): Promise<bigint> {
  let position = 0n;
  for (const type of types) {
    const metadata = {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      schemaVersion: 1,
    };
    position = (await store.appendToStream(`s-${randomUUID()}`, [{ type, data: {}, metadata }])).position;
  }
  return position;
}

/** The store, but a second subscription (a rebuild's) delivers nothing until `gate` resolves. */
function rebuildsWaitFor(gate: Promise<void>): EventStore {
  let subscriptions = 0;
  return storeWith(store, {
    subscribeToAll(options) {
      const subscription = store.subscribeToAll(options);
      if (++subscriptions === 1) return subscription;
      return {
        ...subscription,
        async *batches() {
          await gate;
          yield* subscription.batches();
        },
        close: () => subscription.close(),
      };
    },
  });
}

async function started(projection: Projection<Seen>) {
  const group = new ProjectionGroup({ store, snapshots, logger });
  const readModel = group.add(projection);
  await group.start();
  return { group, readModel };
}

/** Version 1 of the projection starts and stops, which saves its snapshot at the store's last event. */
async function snapshotOfVersion1(): Promise<void> {
  const { group } = await started(recording(1));
  await group.stop();
}

describe('a rebuild beside the live read model', () => {
  it('swaps in a fresh fold at the live checkpoint while events keep coming, and listeners hear each event once', async () => {
    await append('A', 'B', 'C');
    const { group, readModel } = await started(recording(1));
    const heard: string[] = [];
    readModel.onApplied((event) => heard.push(event.type));
    const tampered = { seen: ['not', 'from', 'events'] };
    Object.assign(readModel.state, tampered); // what a rebuild must put right
    group.rebuild('recording');
    const writes = (async () => {
      for (const type of ['D', 'E', 'F', 'G']) await group.waitFor(await append(type));
    })();
    await expect.poll(() => group.rebuildStatus('recording')?.state).toBe('done');
    await writes;
    expect(readModel.state.seen).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G']);
    expect(heard).toEqual(['D', 'E', 'F', 'G']);
    expect(group.rebuildStatus('recording')).toMatchObject({ state: 'done', etaSeconds: 0 });
    await group.stop();
  });

  it('lets the event loop turn between batches, so that requests (and a SIGTERM) are served meanwhile', async () => {
    await append('A', 'B', 'C', 'D', 'E', 'F');
    const inPairs = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite'), readBatchSize: 2 });
    const group = new ProjectionGroup({ store: inPairs, snapshots, logger, eventsPerTurn: 2 });
    group.add(recording(1));
    await group.start();
    group.rebuild('recording');
    const seenBetweenTurns: number[] = [];
    while (group.rebuildStatus('recording')?.state === 'running') {
      seenBetweenTurns.push(group.rebuildStatus('recording')!.events);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(seenBetweenTurns).toEqual([0, 2, 4]);
    await group.stop();
    await inPairs.close();
  });

  it('reports the rebuild already running instead of starting a second', async () => {
    await append('A');
    const { group } = await started(recording(1));
    const first = group.rebuild('recording');
    expect(group.rebuild('recording')).toBe(first);
    await group.stop();
  });
});

describe('a projection whose version changed', () => {
  it('is served from the earlier version’s snapshot when it says it may be, then swapped for its own fold', async () => {
    await append('A', 'B');
    await snapshotOfVersion1();
    await append('C');
    const gate = Promise.withResolvers<void>();
    const group = new ProjectionGroup({ store: rebuildsWaitFor(gate.promise), snapshots, logger });
    const readModel = group.add(recording(2, [1]));
    await group.start();
    expect(readModel.state.seen).toEqual(['A', 'B', 'c']); // version 1's snapshot, followed by version 2
    expect(readModel.interimFromVersion).toBe(1);
    gate.resolve();
    await expect.poll(() => readModel.state.seen).toEqual(['a', 'b', 'c']);
    expect(readModel.interimFromVersion).toBeUndefined();
    await group.stop();
    expect(await snapshots.load('recording')).toMatchObject({ ok: true, snapshot: { version: 2 } });
  });

  it('is rebuilt before it serves anything when it does not read the earlier snapshot', async () => {
    await append('A', 'B');
    await snapshotOfVersion1();
    const { group, readModel } = await started(recording(2));
    expect(readModel.state.seen).toEqual(['a', 'b']);
    await group.stop();
  });
});

describe('the offline status (petstore projections status without --url)', () => {
  it('shows a start served meanwhile from the earlier version’s snapshot the projection says it may read', async () => {
    const at = await append('A', 'B');
    await snapshotOfVersion1();
    await append('C');
    const [status] = await offlineStatus(store, snapshots, [recording(2, [1])]);
    expect(status).toMatchObject({ checkpoint: String(at), interimFromVersion: 1, lag: { events: 1 } });
    expect(status!.snapshot).not.toHaveProperty('refused');
  });

  it('shows an earlier version’s snapshot the projection does not read as refused, and every event to fold', async () => {
    await append('A', 'B');
    await snapshotOfVersion1();
    const [status] = await offlineStatus(store, snapshots, [recording(2)]);
    expect(status).toMatchObject({
      checkpoint: null,
      interimFromVersion: null,
      lag: { events: 2 },
      snapshot: { version: 1, refused: 'projection version 1 -> 2' },
    });
  });
});

/** PetCreated for pet `id` in its stream; resolves the event's position and id. */
async function petCreated(id: number): Promise<{ position: bigint; eventId: string }> {
  const eventId = randomUUID();
  const metadata = { eventId, occurredAt: new Date().toISOString(), correlationId: 'c', schemaVersion: 1 };
  const data = { id, name: `Pet ${id}`, categoryId: 1, status: 'available' };
  const { position } = await store.appendToStream(`pet-${id}`, [{ type: 'PetCreated', data, metadata }]);
  return { position, eventId };
}

describe('verification', () => {
  it('finds a pet list snapshot that earlier code wrote in creation order the same as a fresh fold', async () => {
    await petCreated(1001); // two processes' blocks: 2001 was created before 1002
    await petCreated(2001);
    const last = await petCreated(1002);
    const columns = {
      names: ['Pet 1001', 'Pet 2001', 'Pet 1002'],
      categoryIds: [1, 1, 1],
      statuses: [0, 0, 0],
    };
    await snapshots.save(
      {
        projection: 'pet-list',
        version: 4,
        checkpoint: String(last.position),
        checkpointEventId: last.eventId,
      },
      [
        { ids: [1001, 2001, 1002], ...columns, versions: [0, 0, 0] },
        { removed: [], heldBy: [] },
      ],
    );
    const group = new ProjectionGroup({ store, snapshots, logger });
    group.add(petListProjection);
    await group.start();
    const operations = readModelOperations({ group, store, snapshots, logger });
    expect((await operations.verify('pet-list')).snapshot).toEqual({ result: 'same', checkpoint: '3' });
    await group.stop();
  });

  it('finds the live read model and the snapshot the same as a fresh fold', async () => {
    await append('A', 'B');
    await (await started(recording(1))).group.stop(); // a snapshot at B
    await append('C');
    const { group } = await started(recording(1));
    const operations = readModelOperations({ group, store, snapshots, logger });
    expect(await operations.verify('recording')).toEqual({
      name: 'recording',
      version: 1,
      live: { result: 'same', checkpoint: '3' },
      snapshot: { result: 'same', checkpoint: '2' },
    });
    await group.stop();
  });

  it('shares one fresh fold among verifications of one projection asked for while it runs', async () => {
    await append('A', 'B');
    const { group } = await started(recording(1));
    let folds = 0;
    const counting = storeWith(store, {
      readAll: (options) => {
        if (options?.after === undefined) folds += 1;
        return store.readAll(options);
      },
      subscribeToAll: (options) => {
        if (options?.after === undefined) folds += 1;
        return store.subscribeToAll(options);
      },
    });
    const operations = readModelOperations({ group, store: counting, snapshots, logger });
    const reports = await Promise.all([1, 2, 3].map(() => operations.verify('recording')));
    expect([folds, new Set(reports.map((report) => report.live.result))]).toEqual([1, new Set(['same'])]);
    await operations.verify('recording');
    expect(folds).toBe(2); // a verification asked for after one ended folds again
    await group.stop();
  });

  it('names the first difference when the live read model disagrees with the events', async () => {
    await append('A', 'B');
    const { group, readModel } = await started(recording(1));
    readModel.state.seen[1] = 'X';
    const operations = readModelOperations({ group, store, snapshots, logger });
    expect((await operations.verify('recording')).live).toEqual({
      result: 'different',
      checkpoint: '2',
      path: '[0].seen[1]',
      expected: '"B"',
      actual: '"X"',
    });
    await group.stop();
  });
});
