import { Readable } from 'node:stream';
import {
  AppendConsistencyViolationError,
  BACKWARDS,
  DeadlineExceededError,
  END,
  UnavailableError,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type KurrentDBClient,
  type Position,
  type ReadAllOptions,
  type SubscribeToAllOptions,
} from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import {
  type RecordedEvent,
  StoreUnavailableError,
  WrongExpectedRevisionError,
} from '../../src/application/ports/event-store.ts';
import { kurrentDbEventStore } from '../../src/eventstore/kurrentdb.ts';
import { packPosition } from '../../src/eventstore/kurrentdb-position.ts';

/**
 * The KurrentDB adapter's use of the client, proven with a fake KurrentDB client that records
 * calls: no KurrentDB server runs on these machines. The fakes behave as
 * `@kurrent/kurrentdb-client` 1.3 does (read in its source): reads come from a native iterator
 * that only has `next()`, so a read left early stays open; subscriptions are Node streams the
 * client pushes events into, calling the filter's `checkpointReached` between them.
 */

const log = { warn: () => {}, error: () => {} };

function resolved(at: bigint, type = 'PetCreated', revision = at): AllStreamResolvedEvent {
  return {
    event: {
      streamId: 'pet-1',
      id: `00000000-0000-4000-8000-${String(at).padStart(12, '0')}`,
      revision,
      type,
      isJson: true,
      data: { at: Number(at) },
      metadata: { eventId: 'e', occurredAt: 't', correlationId: 'c', schemaVersion: 1 },
      created: new Date(0),
      position: { commit: at, prepare: at },
    },
  } as AllStreamResolvedEvent;
}

const at = (position: bigint) => packPosition({ commit: position, prepare: position });

/** `$all` of `count` events at positions 10, 20, …; reads as the client makes them. */
function serverWithEvents(count: number) {
  const all = Array.from({ length: count }, (_, i) => resolved(BigInt((i + 1) * 10)));
  const reads = { calls: [] as ReadAllOptions[], open: 0 };
  const readAll = (options: ReadAllOptions = {}) => {
    reads.calls.push(options);
    const from = typeof options.fromPosition === 'object' ? packPosition(options.fromPosition) : -1n;
    const sent = all
      .filter((e) => packPosition(e.event!.position) >= from)
      .slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER));
    reads.open += 1;
    let next = 0;
    let ended = false;
    // The bridge's iterator: batches of 64, and no return(): only reading to the end closes it.
    const native = {
      next: async () => {
        if (next < sent.length) {
          next += 64;
          return { done: false, value: sent.slice(next - 64, next) };
        }
        if (!ended) reads.open -= 1;
        ended = true;
        return { done: true, value: [] };
      },
    };
    return (async function* () {
      for await (const batch of { [Symbol.asyncIterator]: () => native }) yield* batch;
    })();
  };
  return { client: { readAll } as unknown as KurrentDBClient, reads };
}

type ServerSubscription = AllStreamSubscription & { unsubscribed: number };

/** A subscription opens its server subscription when first iterated. */
function iterate(subscription: AsyncIterable<RecordedEvent>) {
  return subscription[Symbol.asyncIterator]();
}

async function opening(opened: readonly ServerSubscription[], count: number): Promise<void> {
  while (opened.length < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** Each call opens the next server subscription; `options` records every call's options. */
function subscribingClient() {
  const options: SubscribeToAllOptions[] = [];
  const opened: ServerSubscription[] = [];
  const subscribeToAll = (given: SubscribeToAllOptions) => {
    options.push(given);
    const subscription = Object.assign(new Readable({ objectMode: true, read() {} }), {
      unsubscribed: 0,
      unsubscribe: async () => {
        subscription.unsubscribed += 1;
      },
    }) as unknown as ServerSubscription;
    opened.push(subscription);
    return subscription;
  };
  /** What the client does on a checkpoint message: call the filter's callback in the stream. */
  const checkpoint = (n: number, position: Position) =>
    options[n]!.filter!.checkpointReached!(opened[n]!, position);
  return { client: { subscribeToAll } as unknown as KurrentDBClient, options, opened, checkpoint };
}

describe('KurrentDB adapter, with a fake KurrentDB client that records calls', () => {
  it('reads $all from the leader in bounded pages, each read to its end, so stopping early leaves no read open', async () => {
    const { client, reads } = serverWithEvents(2_500);
    for await (const event of kurrentDbEventStore(client, log).readAll()) {
      expect(event.type).toBe('PetCreated');
      break;
    }
    expect(reads.open).toBe(0);
    expect(reads.calls).toHaveLength(1);
    expect(reads.calls[0]).toMatchObject({ maxCount: 1_000, requiresLeader: true });
  });

  it('reads every event of $all across pages, in order, after the position given', async () => {
    const { client, reads } = serverWithEvents(2_500);
    const positions: bigint[] = [];
    for await (const event of kurrentDbEventStore(client, log).readAll({ after: at(30n) })) {
      positions.push(event.position);
    }
    expect(positions).toEqual(Array.from({ length: 2_497 }, (_, i) => at(BigInt((i + 4) * 10))));
    expect(reads.calls.map((call) => call.fromPosition)).toEqual([
      { commit: 30n, prepare: 30n },
      { commit: 10_030n, prepare: 10_030n },
      { commit: 20_030n, prepare: 20_030n },
      { commit: 25_000n, prepare: 25_000n },
    ]);
    expect(reads.open).toBe(0);
  });

  it('reads $all from a position it gave by asking the server from that very position, the event there included', async () => {
    const { client, reads } = serverWithEvents(50);
    const positions: bigint[] = [];
    for await (const event of kurrentDbEventStore(client, log).readAll({ from: at(30n), maxCount: 2 })) {
      positions.push(event.position);
    }
    expect(positions).toEqual([at(30n), at(40n)]);
    // Not (30, 29), the pair a read after the position minus one would ask for, which no event has.
    expect(reads.calls.map((call) => call.fromPosition)).toEqual([{ commit: 30n, prepare: 30n }]);
  });

  it('stops reading $all at maxCount', async () => {
    const { client, reads } = serverWithEvents(50);
    const events = [];
    for await (const event of kurrentDbEventStore(client, log).readAll({ maxCount: 3 })) events.push(event);
    expect(events.map((event) => event.position)).toEqual([at(10n), at(20n), at(30n)]);
    expect(reads.calls).toEqual([expect.objectContaining({ maxCount: 3 })]);
  });

  it('answers an idempotent retry, which the server acknowledges without a position, with its last event’s position', async () => {
    const readStreamCalls: unknown[][] = [];
    const client = {
      appendToStream: async () => ({ success: true, nextExpectedRevision: 4n, position: undefined }),
      readStream: (...args: unknown[]) => {
        readStreamCalls.push(args);
        return (async function* () {
          yield resolved(700n, 'PetRenamed', 4n);
        })();
      },
    } as unknown as KurrentDBClient;
    const event = {
      type: 'PetRenamed',
      data: { id: 1, name: 'Rex' },
      metadata: { eventId: '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11', occurredAt: 't', correlationId: 'c' },
    };
    const result = await kurrentDbEventStore(client, log).appendToStream('pet-1', [event as never]);
    expect(result).toEqual({ nextExpectedRevision: 4n, position: at(700n) });
    expect(readStreamCalls).toEqual([['pet-1', { fromRevision: 4n, maxCount: 1, requiresLeader: true }]]);
  });

  it('rejects an append the server refused that a client with throwOnAppendFailure=false reports as unsuccessful', async () => {
    const readStreamCalls: unknown[][] = [];
    const client = {
      // What the client's batch append answers then for a conflict on a stream at revision 6:
      // success false, and nextExpectedRevision BigInt(hasCurrentStreamRevision()), that is 1.
      appendToStream: async () => ({ success: false, nextExpectedRevision: 1n, position: undefined }),
      readStream: (...args: unknown[]) => {
        readStreamCalls.push(args);
        return (async function* () {
          yield resolved(900n, 'PetRenamed', 6n);
        })();
      },
    } as unknown as KurrentDBClient;
    const event = {
      type: 'PetRenamed',
      data: { id: 1, name: 'Rex' },
      metadata: { eventId: '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11', occurredAt: 't', correlationId: 'c' },
    };
    const failure = await kurrentDbEventStore(client, log)
      .appendToStream('pet-1', [event as never], { expectedRevision: 4n })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
    expect(failure).toMatchObject({ streamName: 'pet-1', expected: 4n, actual: 6n });
    expect(readStreamCalls).toEqual([
      ['pet-1', { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true }],
    ]);
  });

  it('cancels the server subscription when the consumer breaks out of its loop', async () => {
    const { client, opened } = subscribingClient();
    const subscription = kurrentDbEventStore(client, log).subscribeToAll();
    const events = iterate(subscription);
    const first = events.next();
    await opening(opened, 1);
    opened[0]!.push(resolved(10n));
    opened[0]!.push(resolved(20n));
    expect((await first).value.position).toBe(at(10n));
    await events.return!(); // what `break` in a for-await loop does
    expect(opened[0]!.unsubscribed).toBe(1);
  });

  it('reports a server filter checkpoint after the events before it, from a subscription on the leader', async () => {
    const { client, options, opened, checkpoint } = subscribingClient();
    const seen: string[] = [];
    const subscription = kurrentDbEventStore(client, log).subscribeToAll({
      onCheckpoint: (position) => seen.push(`checkpoint ${position}`),
    });
    const events = iterate(subscription);
    const first = events.next();
    await opening(opened, 1);
    opened[0]!.push(resolved(10n));
    await checkpoint(0, { commit: 500n, prepare: 500n });
    opened[0]!.push(resolved(600n));
    seen.push(`event ${(await first).value.position}`);
    seen.push(`event ${(await events.next()).value.position}`);
    await events.return!();
    expect(seen).toEqual([`event ${at(10n)}`, `checkpoint ${at(500n)}`, `event ${at(600n)}`]);
    expect(options[0]).toMatchObject({ requiresLeader: true, filter: { regex: '^[^$].*' } });
  });

  it('resubscribes after a drop from the last filter checkpoint, not from the last event', async () => {
    const { client, options, opened, checkpoint } = subscribingClient();
    const taken = Promise.withResolvers<bigint>();
    const subscription = kurrentDbEventStore(client, log, 1).subscribeToAll({ onCheckpoint: taken.resolve });
    const events = iterate(subscription);
    const first = events.next();
    await opening(opened, 1);
    opened[0]!.push(resolved(10n));
    expect((await first).value.position).toBe(at(10n));
    const second = events.next();
    await checkpoint(0, { commit: 90_000n, prepare: 90_000n });
    expect(await taken.promise).toBe(at(90_000n));
    opened[0]!.destroy(new Error('14 UNAVAILABLE: Connection dropped'));
    await opening(opened, 2);
    opened[1]!.push(resolved(90_010n));
    expect((await second).value.position).toBe(at(90_010n));
    await events.return!();
    expect(options[1]!.fromPosition).toEqual({ commit: 90_000n, prepare: 90_000n });
  });

  it('turns a consistency violation of a multi-stream append into WrongExpectedRevisionError naming its stream', async () => {
    const violation = new AppendConsistencyViolationError(undefined as never, {
      violationsList: [
        { checkIndex: 1, streamState: { stream: 'pet-3', expectedState: '4', actualState: '6' } },
      ],
    });
    const client = {
      multiStreamAppend: async () => {
        throw violation;
      },
    } as unknown as KurrentDBClient;
    const event = (type: string) => ({
      type,
      data: {},
      metadata: { eventId: 'e', occurredAt: 't', correlationId: 'c' },
    });
    const failure = await kurrentDbEventStore(client, log)
      .appendToStreams([
        { streamName: 'order-7', events: [event('OrderPlaced') as never], expectedRevision: 'no_stream' },
        { streamName: 'pet-3', events: [event('PetStatusChanged') as never], expectedRevision: 4n },
      ])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
    expect(failure).toMatchObject({ streamName: 'pet-3', expected: 4n, actual: 6n });
  });

  it('rejects an append the server did not answer in time with StoreUnavailableError (a 503), not the client’s error', async () => {
    const client = {
      appendToStream: async () => {
        throw new DeadlineExceededError({ message: '4 DEADLINE_EXCEEDED: Deadline exceeded' } as never);
      },
    } as unknown as KurrentDBClient;
    const event = {
      type: 'PetCreated',
      data: { id: 1, name: 'Rex' },
      metadata: { eventId: '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11', occurredAt: 't', correlationId: 'c' },
    };
    const failure = await kurrentDbEventStore(client, log)
      .appendToStream('pet-1', [event as never], { expectedRevision: 'no_stream' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure).toMatchObject({ reason: 'unreachable', status: 503 });
  });

  it('rejects a multi-stream append to a server out of reach with StoreUnavailableError', async () => {
    const client = {
      multiStreamAppend: async () => {
        throw new UnavailableError({ message: '14 UNAVAILABLE: No connection established' } as never);
      },
    } as unknown as KurrentDBClient;
    const event = (type: string) => ({
      type,
      data: {},
      metadata: { eventId: 'e', occurredAt: 't', correlationId: 'c' },
    });
    const failure = await kurrentDbEventStore(client, log)
      .appendToStreams([
        { streamName: 'order-7', events: [event('OrderPlaced') as never], expectedRevision: 'no_stream' },
        { streamName: 'pet-3', events: [event('PetStatusChanged') as never], expectedRevision: 4n },
      ])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
  });
});
