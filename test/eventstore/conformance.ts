import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../../src/application/ports/event-store.ts';

/**
 * The contract of the event store port, for every adapter. A store may be shared with other
 * tests (KurrentDB), so each test uses its own random streams and reads all events after the
 * head it saw first.
 */
export function describeEventStoreConformance(adapterName: string, open: () => Promise<EventStore>): void {
  describe(`EventStore conformance: ${adapterName}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    const stream = () => `conformance-${randomUUID()}`;

    it('appends the first event of a stream at revision 0', async () => {
      const result = await store.appendToStream(stream(), [event('A')], { expectedRevision: 'no_stream' });
      expect(result.nextExpectedRevision).toBe(0n);
      expect(typeof result.position).toBe('bigint');
    });

    it('reads a stream back in revision order with type, data and metadata intact', async () => {
      const name = stream();
      const written = [event('A', { n: 1 }), event('B', { n: 2, text: 'ünïcödé "quoted"' })];
      await store.appendToStream(name, written);
      const read = await store.readStream(name);
      expect(read.map((e) => [e.streamName, e.revision, e.type, e.data, e.metadata])).toEqual([
        [name, 0n, 'A', { n: 1 }, written[0]!.metadata],
        [name, 1n, 'B', { n: 2, text: 'ünïcödé "quoted"' }, written[1]!.metadata],
      ]);
    });

    it('reads a stream from a revision', async () => {
      const name = stream();
      await store.appendToStream(name, [event('A'), event('B'), event('C')]);
      const read = await store.readStream(name, { fromRevision: 1n });
      expect(read.map((e) => e.type)).toEqual(['B', 'C']);
    });

    it('reads an unknown stream as empty', async () => {
      expect(await store.readStream(stream())).toEqual([]);
    });

    it('appends when the expected revision is the stream’s last revision', async () => {
      const name = stream();
      const first = await store.appendToStream(name, [event('A')]);
      const second = await store.appendToStream(name, [event('B'), event('C')], {
        expectedRevision: first.nextExpectedRevision,
      });
      expect(second.nextExpectedRevision).toBe(2n);
      expect(second.position > first.position).toBe(true);
    });

    it('rejects a stale expected revision with the stream’s actual revision and writes nothing', async () => {
      const name = stream();
      await store.appendToStream(name, [event('A'), event('B')]);
      const error = await store.appendToStream(name, [event('C')], { expectedRevision: 0n }).catch((e) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ streamName: name, expected: 0n, actual: 1n });
      expect((await store.readStream(name)).map((e) => e.type)).toEqual(['A', 'B']);
    });

    it('rejects no_stream when the stream exists', async () => {
      const name = stream();
      await store.appendToStream(name, [event('A')]);
      const error = await store
        .appendToStream(name, [event('B')], { expectedRevision: 'no_stream' })
        .catch((e) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ actual: 0n });
    });

    it('rejects a revision for a stream that does not exist, reporting no_stream', async () => {
      const error = await store
        .appendToStream(stream(), [event('A')], { expectedRevision: 3n })
        .catch((e) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ actual: 'no_stream' });
    });

    it('rejects stream_exists when the stream does not exist', async () => {
      const error = await store
        .appendToStream(stream(), [event('A')], { expectedRevision: 'stream_exists' })
        .catch((e) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    });

    it('accepts stream_exists when the stream exists', async () => {
      const name = stream();
      await store.appendToStream(name, [event('A')]);
      const result = await store.appendToStream(name, [event('B')], { expectedRevision: 'stream_exists' });
      expect(result.nextExpectedRevision).toBe(1n);
    });

    it('lets exactly one of many concurrent appends with the same expected revision win', async () => {
      const name = stream();
      await store.appendToStream(name, [event('A')]);
      const attempts = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          store.appendToStream(name, [event(`B${i}`)], { expectedRevision: 0n }),
        ),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      const failures = attempts.filter((a) => a.status === 'rejected');
      expect(failures.every((f) => f.reason instanceof WrongExpectedRevisionError)).toBe(true);
      expect(await store.readStream(name)).toHaveLength(2);
    });

    it('appends to several streams at once: every event, each stream at its next revisions', async () => {
      const [a, b] = [stream(), stream()];
      await store.appendToStream(b, [event('B0')]);
      const result = await store.appendToStreams([
        { streamName: a, events: [event('A0'), event('A1')], expectedRevision: 'no_stream' },
        { streamName: b, events: [event('B1')], expectedRevision: 0n },
      ]);
      expect(result.nextExpectedRevisions).toEqual([1n, 1n]);
      expect((await store.readStream(a)).map((e) => e.type)).toEqual(['A0', 'A1']);
      expect((await store.readStream(b)).map((e) => e.type)).toEqual(['B0', 'B1']);
    });

    it('returns from a multi-stream append the position of its last event, as readAll reports it', async () => {
      const before = (await store.headPosition()) ?? 0n;
      const [a, b] = [stream(), stream()];
      const result = await store.appendToStreams([
        { streamName: a, events: [event('A0')], expectedRevision: 'no_stream' },
        { streamName: b, events: [event('B0')], expectedRevision: 'no_stream' },
      ]);
      const mine = await collect(
        store.readAll({ after: before }),
        (e) => e.streamName === a || e.streamName === b,
      );
      expect(mine.map((e) => e.streamName)).toEqual([a, b]);
      expect(result.position).toBe(mine.at(-1)!.position);
    });

    it.each([
      ['the first', 0],
      ['the second', 1],
    ])(
      'writes nothing to any stream when %s stream’s expected revision fails, naming it',
      async (_which, failing) => {
        const names = [stream(), stream()];
        await store.appendToStream(names[failing]!, [event('X')]);
        const failure = await store
          .appendToStreams(
            names.map((name) => ({
              streamName: name,
              events: [event('Y')],
              expectedRevision: 'no_stream' as const,
            })),
          )
          .catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
        expect((failure as WrongExpectedRevisionError).streamName).toBe(names[failing]);
        expect((await store.readStream(names[0]!)).length + (await store.readStream(names[1]!)).length).toBe(
          1,
        );
      },
    );

    it('refuses a multi-stream append that names a stream twice, and writes nothing', async () => {
      const [a, b] = [stream(), stream()];
      const failure = await store
        .appendToStreams([
          { streamName: a, events: [event('A')], expectedRevision: 'no_stream' },
          { streamName: b, events: [event('B')], expectedRevision: 'no_stream' },
          { streamName: a, events: [event('A again')], expectedRevision: 'any' },
        ])
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      expect((await store.readStream(a)).length + (await store.readStream(b)).length).toBe(0);
    });

    it('lets exactly one of several concurrent multi-stream appends on a shared stream win', async () => {
      const shared = stream();
      await store.appendToStream(shared, [event('S0')]);
      const attempts = await Promise.allSettled(
        Array.from({ length: 6 }, () =>
          store.appendToStreams([
            { streamName: stream(), events: [event('O')], expectedRevision: 'no_stream' },
            { streamName: shared, events: [event('S')], expectedRevision: 0n },
          ]),
        ),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      expect(await store.readStream(shared)).toHaveLength(2);
    });

    it('reads all events after a position in position order', async () => {
      const head = await store.headPosition();
      const [a, b] = [stream(), stream()];
      await store.appendToStream(a, [event('A1')]);
      await store.appendToStream(b, [event('B1')]);
      await store.appendToStream(a, [event('A2')]);
      const read = await collect(store.readAll(head === undefined ? {} : { after: head }), (e) =>
        [a, b].includes(e.streamName),
      );
      expect(read.map((e) => e.type)).toEqual(['A1', 'B1', 'A2']);
      expect(isIncreasing(read.map((e) => e.position))).toBe(true);
    });

    it('reads from a position it gave, the event there first', async () => {
      const [a, b] = [stream(), stream()];
      await store.appendToStream(a, [event('A1')]);
      const { position } = await store.appendToStream(b, [event('B1')]);
      await store.appendToStream(a, [event('A2')]);
      const read = await collect(store.readAll({ from: position, maxCount: 2 }), () => true);
      expect(read.map((e) => [e.type, e.position === position])).toEqual([
        ['B1', true],
        ['A2', false],
      ]);
    });

    it('reports the position of the last event as the head', async () => {
      const result = await store.appendToStream(stream(), [event('A')]);
      expect(await store.headPosition()).toBe(result.position);
    });

    it('says a store that takes appends can take a write, without writing anything', async () => {
      const head = await store.headPosition();
      await expect(store.checkWritable()).resolves.toBeUndefined();
      expect(await store.headPosition()).toBe(head);
    });

    it('gives every event of one append consecutive revisions and increasing positions', async () => {
      const name = stream();
      const head = await store.headPosition();
      await store.appendToStream(name, [event('A'), event('B'), event('C')]);
      const read = await collect(
        store.readAll(head === undefined ? {} : { after: head }),
        (e) => e.streamName === name,
      );
      expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
      expect(isIncreasing(read.map((e) => e.position))).toBe(true);
    });

    it('returns from an append of several events the position of the last one, as readAll reports it', async () => {
      const name = stream();
      const head = await store.headPosition();
      const result = await store.appendToStream(name, [event('A'), event('B'), event('C')]);
      const read = await collect(
        store.readAll(head === undefined ? {} : { after: head }),
        (e) => e.streamName === name,
      );
      expect(read.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      expect(read.at(-1)!.position).toBe(result.position);
    });

    it('subscribes: catches up on past events, then delivers new ones live, in order', async () => {
      const name = stream();
      const head = await store.headPosition();
      await store.appendToStream(name, [event('past')]);
      const subscription = store.subscribeToAll(head === undefined ? {} : { after: head });
      const received: RecordedEvent[] = [];
      const done = (async () => {
        for await (const e of subscription) {
          if (e.streamName !== name) continue;
          received.push(e);
          if (received.length === 3) break;
        }
      })();
      await store.appendToStream(name, [event('live1')]);
      await store.appendToStream(name, [event('live2')]);
      await withTimeout(done, 10_000);
      await subscription.close();
      expect(received.map((e) => e.type)).toEqual(['past', 'live1', 'live2']);
    });

    it('delivers the same feed in batches: none empty, all in position order', async () => {
      const name = stream();
      const head = await store.headPosition();
      await store.appendToStream(name, [event('A'), event('B')]);
      await store.appendToStream(name, [event('C')]);
      const subscription = store.subscribeToAll(head === undefined ? {} : { after: head });
      const batches: RecordedEvent[][] = [];
      const done = (async () => {
        for await (const batch of subscription.batches()) {
          batches.push([...batch]);
          const mine = batches.flat().filter((e) => e.streamName === name);
          if (mine.length === 4) break;
        }
      })();
      await store.appendToStream(name, [event('D')]);
      await withTimeout(done, 10_000);
      await subscription.close();
      expect(batches.every((batch) => batch.length > 0)).toBe(true);
      const mine = batches.flat().filter((e) => e.streamName === name);
      expect(mine.map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
      expect(isIncreasing(batches.flat().map((e) => e.position))).toBe(true);
    });

    it('delivers the same events, stream names and metadata included, to a lean subscriber', async () => {
      const name = stream();
      const written = [event('A', { n: 1 }), event('B', { n: 2 })];
      const first = await store.appendToStream(name, [written[0]!]);
      await store.appendToStream(name, [written[1]!]);
      const subscription = store.subscribeToAll({ after: first.position - 1n, lean: true });
      const mine: RecordedEvent[] = [];
      for await (const e of subscription) {
        if (e.streamName === name) mine.push(e);
        if (mine.length === 2) break;
      }
      await subscription.close();
      expect(mine.map((e) => [e.streamName, e.revision, e.type, e.data, e.metadata])).toEqual([
        [name, 0n, 'A', { n: 1 }, written[0]!.metadata],
        [name, 1n, 'B', { n: 2 }, written[1]!.metadata],
      ]);
    });

    it('subscribes after a position and skips everything up to it', async () => {
      const name = stream();
      const first = await store.appendToStream(name, [event('before')]);
      const subscription = store.subscribeToAll({ after: first.position });
      await store.appendToStream(name, [event('after')]);
      let seen: RecordedEvent | undefined;
      for await (const e of subscription) {
        if (e.streamName === name) {
          seen = e;
          break;
        }
      }
      await subscription.close();
      expect(seen?.type).toBe('after');
    });

    it('reports a checkpoint only once every event up to it is delivered', async () => {
      const name = stream();
      const head = await store.headPosition();
      const log: Array<readonly ['event' | 'checkpoint', bigint]> = [];
      const subscription = store.subscribeToAll({
        ...(head === undefined ? {} : { after: head }),
        onCheckpoint: (position) => log.push(['checkpoint', position]),
      });
      const events = subscription[Symbol.asyncIterator]();
      const mine = async (count: number) => {
        while (count > 0) {
          const { value: e } = await events.next();
          if (e.streamName !== name) continue;
          log.push(['event', e.position]);
          count -= 1;
        }
      };
      await store.appendToStream(name, [event('A'), event('B')]);
      await withTimeout(mine(2), 10_000);
      await store.appendToStream(name, [event('C')]);
      await withTimeout(mine(1), 10_000);
      await subscription.close();
      const checkpoints = log.flatMap(([kind, position], i) =>
        kind === 'checkpoint' ? [[i, position]] : [],
      );
      for (const [i, checkpoint] of checkpoints as Array<[number, bigint]>) {
        const later = log.slice(i + 1).filter(([kind]) => kind === 'event');
        expect(later.every(([, position]) => position > checkpoint)).toBe(true);
      }
      expect(log.filter(([kind]) => kind === 'event')).toHaveLength(3);
    });

    it('ends a subscription’s iteration when it is closed', async () => {
      const head = await store.headPosition();
      const subscription = store.subscribeToAll(head === undefined ? {} : { after: head });
      const iteration = (async () => {
        for await (const _ of subscription) {
          // drain
        }
        return 'ended';
      })();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await subscription.close();
      expect(await withTimeout(iteration, 5_000)).toBe('ended');
    });
  });
}

function event(type: string, data: Record<string, unknown> = {}): NewEvent {
  return {
    type,
    data,
    metadata: {
      eventId: randomUUID(),
      occurredAt: '2026-01-02T03:04:05.000Z',
      correlationId: randomUUID(),
      schemaVersion: 1,
    },
  };
}

async function collect(
  events: AsyncIterable<RecordedEvent>,
  keep: (event: RecordedEvent) => boolean,
): Promise<RecordedEvent[]> {
  const kept: RecordedEvent[] = [];
  for await (const e of events) if (keep(e)) kept.push(e);
  return kept;
}

function isIncreasing(values: bigint[]): boolean {
  return values.every((value, i) => i === 0 || value > values[i - 1]!);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)),
  ]);
}
