import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Projection } from '../../projections/projection.ts';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { ProjectionGroup, ProjectionRunner } from '../../src/read-models/runner.ts';
import { snapshotDirectory, type SnapshotStore } from '../../src/read-models/snapshot-file.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { storeWith } from '../support/store-with.ts';

/** Counts events, and remembers every type it saw: enough to tell a rebuild from a snapshot. */
function countingProjection(version: number): Projection<{ count: number; seen: string[] }> {
  return {
    name: 'counting',
    version,
    initialState: () => ({ count: 0, seen: [] }),
    evolve: (state, event) => ({ count: state.count + 1, seen: [...state.seen, event.type] }),
    toSnapshot: (state) => [state],
    fromSnapshot: (parts) => [...parts][0] as { count: number; seen: string[] },
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
      occurredAt: '2026-01-01T00:00:00.000Z',
      correlationId: 'c',
      schemaVersion: 1,
    };
    position = (await store.appendToStream(`s-${randomUUID()}`, [{ type, data: {}, metadata }])).position;
  }
  return position;
}

async function eventIdAt(position: bigint): Promise<string> {
  for await (const event of store.readAll({ after: position - 1n, maxCount: 1 }))
    return event.metadata.eventId;
  throw new Error(`no event at ${position}`);
}

/** A runner of the counting projection; `options` in place of the defaults (the quiet logger). */
function runner(
  version: number,
  options: Partial<
    Pick<ConstructorParameters<typeof ProjectionRunner>[0], 'snapshotEveryEvents' | 'logger'>
  > = {},
) {
  return new ProjectionRunner({
    store,
    projection: countingProjection(version),
    snapshots,
    logger,
    ...options,
  });
}

describe('ProjectionRunner', () => {
  it('catches up with every stored event before start() resolves', async () => {
    const head = await append('A', 'B', 'C');
    const r = runner(1);
    await r.start();
    expect([r.state.count, r.checkpoint]).toEqual([3, head]);
    await r.stop();
  });

  it('resolves waitFor once a later append is projected', async () => {
    const r = runner(1);
    await r.start();
    const position = await append('A');
    await r.waitFor(position);
    expect(r.state.seen).toEqual(['A']);
    await r.stop();
  });

  it('starts from its snapshot and projects only what came after it', async () => {
    await append('A', 'B');
    const first = runner(1);
    await first.start();
    await first.stop();
    await append('C');
    const second = runner(1);
    await second.start();
    expect(second.state.seen).toEqual(['A', 'B', 'C']);
    expect(second.state.count).toBe(3);
    await second.stop();
  });

  it('saves a snapshot every N events while running', async () => {
    const r = runner(1, { snapshotEveryEvents: 2 });
    await r.start();
    await r.waitFor(await append('A', 'B'));
    // Written in the background (a chunk at a time, then fsynced): poll for it.
    await expect
      .poll(() => snapshots.load('counting'))
      .toMatchObject({
        ok: true,
        snapshot: { version: 1, parts: [{ count: 2 }] },
      });
    await r.stop();
  });

  it('saves its snapshot where a start caught up, not part-way through the catch-up', async () => {
    // A restored backup or a changed projection: a start folds many events, in several reads.
    await store.close();
    store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite'), readBatchSize: 2 });
    const head = await append('A', 'B', 'C', 'D', 'E', 'F');
    const r = runner(1, { snapshotEveryEvents: 2 });
    await r.start();
    await expect
      .poll(() => snapshots.header('counting'))
      .toMatchObject({ ok: true, header: { checkpoint: String(head) } });
    await r.stop();
  });

  it('keeps saving a snapshot every N events, at most once a minute, after the wall clock was set back', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: Date.parse('2026-11-26T12:00:00Z') });
    try {
      const r = runner(1, { snapshotEveryEvents: 2 });
      await r.start();
      await r.waitFor(await append('A', 'B'));
      await expect
        .poll(() => snapshots.header('counting'))
        .toMatchObject({ ok: true, header: { checkpoint: '2' } });
      vi.advanceTimersByTime(61_000); // a minute has passed since that snapshot…
      vi.setSystemTime(Date.parse('2026-11-26T11:00:00Z')); // …when NTP sets the clock back an hour
      await r.waitFor(await append('C', 'D'));
      await expect
        .poll(() => snapshots.header('counting'))
        .toMatchObject({ ok: true, header: { checkpoint: '4' } });
      await r.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('rebuilds from position 0 when the projection’s version changed', async () => {
    await append('A', 'B');
    await snapshots.save(
      {
        projection: 'counting',
        version: 1,
        checkpoint: '2',
        checkpointEventId: await eventIdAt(2n),
      },
      [{ count: 99, seen: ['stale'] }],
    );
    const r = runner(2);
    await r.start();
    expect(r.state).toEqual({ count: 2, seen: ['A', 'B'] });
    await r.stop();
  });

  it('rebuilds when the snapshot was not made from this store (one replaced under it)', async () => {
    await append('A');
    await snapshots.save(
      {
        projection: 'counting',
        version: 1,
        checkpoint: '500',
        checkpointEventId: 'an event of another store',
      },
      [{ count: 99, seen: [] }],
    );
    const r = runner(1);
    await r.start();
    expect(r.state).toEqual({ count: 1, seen: ['A'] });
    await r.stop();
  });

  it('tells listeners about each event after applying it', async () => {
    const r = runner(1);
    await r.start();
    const heard: Array<[string, number]> = [];
    r.onApplied((event) => heard.push([event.type, r.state.count]));
    await r.waitFor(await append('A', 'B'));
    expect(heard).toEqual([
      ['A', 1],
      ['B', 2],
    ]);
    await r.stop();
  });
});

describe('ProjectionGroup', () => {
  function countingSubscriptions(): { store: EventStore; count: () => number } {
    let subscriptions = 0;
    const counted = storeWith(store, {
      subscribeToAll: (options) => {
        subscriptions += 1;
        return store.subscribeToAll(options);
      },
    });
    return { store: counted, count: () => subscriptions };
  }

  function named(name: string, version: number) {
    return { ...countingProjection(version), name };
  }

  it('feeds every read model from one subscription', async () => {
    await append('A', 'B');
    const counted = countingSubscriptions();
    const group = new ProjectionGroup({ store: counted.store, logger });
    const first = group.add(named('first', 1));
    const second = group.add(named('second', 1));
    await group.start();
    await group.waitFor(await append('C'));
    expect([first.state.seen, second.state.seen, counted.count()]).toEqual([
      ['A', 'B', 'C'],
      ['A', 'B', 'C'],
      1,
    ]);
    await group.stop();
  });

  it('lets the event loop turn between batches of a burst another process wrote, so that requests are served meanwhile', async () => {
    const inPairs = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite'), readBatchSize: 2 });
    const group = new ProjectionGroup({ store: inPairs, logger, eventsPerTurn: 2 });
    group.add(named('first', 1));
    await group.start();
    const metadata = () => ({
      eventId: randomUUID(),
      occurredAt: '2026-01-01T00:00:00.000Z',
      correlationId: 'c',
      schemaVersion: 1,
    });
    // Six events in one commit of "another process": the group reads them in three batches.
    const events = ['A', 'B', 'C', 'D', 'E', 'F'].map((type) => ({ type, data: {}, metadata: metadata() }));
    const last = (await store.appendToStream(`s-${randomUUID()}`, events)).position;
    const seenBetweenTurns = new Set<bigint>();
    while (group.checkpoint !== last) {
      if (group.checkpoint !== undefined) seenBetweenTurns.add(group.checkpoint);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect([...seenBetweenTurns].filter((position) => position > last - 6n)).toEqual([last - 4n, last - 2n]);
    await group.stop();
    await inPairs.close();
  });

  it('rebuilds only the read model whose version changed; the other goes on from its snapshot', async () => {
    await append('A', 'B');
    const before = new ProjectionGroup({ store, snapshots, logger });
    before.add(named('kept', 1));
    before.add(named('changed', 1));
    await before.start();
    await before.stop();
    await snapshots.save(
      {
        projection: 'kept',
        version: 1,
        checkpoint: String(await store.headPosition()),
        checkpointEventId: await eventIdAt((await store.headPosition())!),
      },
      [{ count: 40, seen: ['from snapshot'] }],
    );
    await append('C');

    const after = new ProjectionGroup({ store, snapshots, logger });
    const kept = after.add(named('kept', 1));
    const changed = after.add(named('changed', 2));
    await after.start();
    expect(kept.state).toEqual({ count: 41, seen: ['from snapshot', 'C'] });
    expect(changed.state).toEqual({ count: 3, seen: ['A', 'B', 'C'] });
    await after.stop();
  });

  it('refuses a projection added after it started', async () => {
    const group = new ProjectionGroup({ store, logger });
    await group.start();
    expect(() => group.add(named('late', 1))).toThrow('Add every projection before the group starts.');
    await group.stop();
  });
});

describe('read models that meet trouble', () => {
  const throwingOn = (type: string): Projection<{ count: number; seen: string[] }> => ({
    ...countingProjection(1),
    evolve: (state, event) => {
      if (event.type === type) throw new Error(`cannot fold ${type}`);
      return { count: state.count + 1, seen: [...state.seen, event.type] };
    },
  });

  it('passes over an event its projection throws on, and goes on with the next ones', async () => {
    const group = new ProjectionGroup({ store, logger });
    const readModel = group.add(throwingOn('Poison'));
    await group.start();
    await group.waitFor(await append('A', 'Poison', 'B'));
    expect(readModel.state.seen).toEqual(['A', 'B']);
    await group.stop();
  });

  /** The counting projection of a release that writes A and B alone. */
  const knowingAandB = (): Projection<{ count: number; seen: string[] }> => ({
    ...countingProjection(1),
    knownEventTypes: new Set(['A', 'B']),
  });

  it('logs each type of event its release does not know once, with its first position, and folds on', async () => {
    const { logger: captured, lines } = capturedLogger();
    const group = new ProjectionGroup({ store, logger: captured });
    const readModel = group.add(knowingAandB());
    await group.start();
    const first = await append('A', 'Vaccinated');
    await group.waitFor(await append('Vaccinated', 'B'));
    expect(readModel.state.seen).toEqual(['A', 'Vaccinated', 'Vaccinated', 'B']);
    expect(lines.filter((line) => line.event === 'read_model.unknown_event')).toEqual([
      expect.objectContaining({
        level: 50,
        projection: 'counting',
        type: 'Vaccinated',
        position: String(first),
      }),
    ]);
    await group.stop();
  });

  it('is untrusted once it passed over an event its release does not know, saying which', async () => {
    const group = new ProjectionGroup({ store, logger });
    group.add(knowingAandB());
    await group.start();
    const position = await append('A', 'Vaccinated');
    await group.waitFor(position);
    expect(group.passedOver).toBe(
      `read model counting passed over events of a type this release does not know (Vaccinated, first at position ${position}): a newer release wrote them`,
    );
    await group.stop();
  });

  it('saves no snapshot once it passed over an event its release does not know, so that the next start meets it again', async () => {
    const group = new ProjectionGroup({ store, snapshots, logger, snapshotEveryEvents: 1 });
    group.add(knowingAandB());
    await group.start();
    await group.waitFor(await append('A', 'Vaccinated', 'B'));
    await group.stop();
    const again = new ProjectionGroup({ store, snapshots, logger });
    again.add(knowingAandB());
    await again.start();
    expect(again.passedOver).toContain('(Vaccinated, first at position');
    await again.stop();
  });

  it('is trusted while every event is of a type its release knows', async () => {
    const group = new ProjectionGroup({ store, logger });
    group.add(knowingAandB());
    await group.start();
    await group.waitFor(await append('A', 'B'));
    expect(group.passedOver).toBeUndefined();
    await group.stop();
  });

  it('keeps applying events when a listener throws', async () => {
    const group = new ProjectionGroup({ store, logger });
    const readModel = group.add(countingProjection(1));
    readModel.onApplied(() => {
      throw new Error('listener bug');
    });
    await group.start();
    await group.waitFor(await append('A', 'B'));
    expect(readModel.state.count).toBe(2);
    await group.stop();
  });

  it('rejects a wait still pending when the group stops', async () => {
    const group = new ProjectionGroup({ store, logger });
    group.add(countingProjection(1));
    await group.start();
    const pending = group.waitFor(10_000n);
    await group.stop();
    await expect(pending).rejects.toThrow('The read models have stopped.');
  });

  it('rebuilds from position 0 when the snapshot file is damaged, and logs why', async () => {
    await append('A');
    const first = runner(1);
    await first.start();
    await first.stop();
    const file = path.join(temp.dir, 'snapshots', 'counting.snapshot');
    writeFileSync(file, readFileSync(file).subarray(0, -3));
    const captured = capturedLogger('warn');
    const r = runner(1, { logger: captured.logger });
    await r.start();
    expect(r.state).toEqual({ count: 1, seen: ['A'] });
    expect(captured.lines).toContainEqual(
      expect.objectContaining({
        projection: 'counting',
        why: expect.stringMatching(/: truncated$/),
        msg: 'snapshot ignored: rebuilding the read model from position 0',
      }),
    );
    await r.stop();
  });

  it('logs a snapshot of the first format it removes at start as such, not as what an interrupted write left', async () => {
    mkdirSync(path.join(temp.dir, 'snapshots'), { recursive: true });
    writeFileSync(path.join(temp.dir, 'snapshots', 'counting.snapshot.json'), '{"projection":"counting"}');
    const captured = capturedLogger('warn');
    const r = runner(1, { logger: captured.logger });
    await r.start();
    expect(captured.lines.map(({ msg, files }) => ({ msg, files }))).toEqual([
      {
        msg: 'removed snapshots of the first format, which this code does not read',
        files: ['counting.snapshot.json'],
      },
    ]);
    await r.stop();
  });

  it('removes at start the temporary file an interrupted snapshot write left', async () => {
    mkdirSync(path.join(temp.dir, 'snapshots'), { recursive: true });
    const leftover = path.join(temp.dir, 'snapshots', `counting.snapshot.${process.pid}.12345678.tmp`);
    writeFileSync(leftover, '[{"count":');
    const r = runner(1);
    await r.start();
    expect(existsSync(leftover)).toBe(false);
    await r.stop();
  });
});
