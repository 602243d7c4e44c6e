import {
  BACKWARDS,
  END,
  KurrentDBClient,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
} from '@kurrent/kurrentdb-client';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type MultiAppendResult,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeToAllOptions,
  type Subscription,
  WrongExpectedRevisionError,
} from '../application/ports/event-store.ts';
import { badAppendShape } from './append-shape.ts';
import { invalidConnectionString, withoutCredentials } from './kurrentdb-connection.ts';
import { packPosition, unpackPosition } from './kurrentdb-position.ts';
import {
  type KurrentDbLog,
  positionOf,
  toMultiAppendEventData,
  toEventData,
  toMultiAppendConflict,
  toRecordedEvent,
  toStoreUnavailable,
  toStreamState,
  toWrongExpectedRevision,
} from './kurrentdb-mapping.ts';
import { markFilterCheckpoint, resubscribingSubscription } from './kurrentdb-subscription.ts';

/**
 * The production event store: KurrentDB (formerly EventStoreDB), over gRPC with
 * `@kurrent/kurrentdb-client`. Positions are packed (commit, prepare) pairs, see
 * `kurrentdb-position.ts`. System events (`$`-prefixed types) are never returned.
 *
 * Every read goes to the leader (`requiresLeader`): a follower may not have a write yet, and
 * `$all` feeds the read models (rebuilds, the check of a snapshot's event), which must never see
 * less than a write already acknowledged.
 *
 * `readAll`, subscriptions, appends and the head carry exact positions: the position of an event
 * in `$all`, which for every event an append writes is its own log position, as commit and
 * prepare alike. `readStream` does too when the server sends the event's position, as KurrentDB
 * does for stream reads since 22.6; an older one sends none, and then it carries a lower bound
 * (see `positionOf`): wait for read-your-writes on an append's position or on `headPosition()`,
 * never on a position from `readStream`.
 */

/**
 * Events per server read of `$all`. The client cannot cancel a read: one that the consumer leaves
 * early stays open on the server until the process collects it, so `readAll` reads `$all` in
 * bounded pages, each to its end, and never leaves a read open.
 */
const READ_ALL_PAGE = 1_000;

export type KurrentDbEventStoreOptions = {
  /** `kurrentdb://…` or `esdb://…` connection string. */
  readonly connectionString: string;
  /** Subscription drops and resubscriptions (warn), events skipped as unreadable (error). */
  readonly log: KurrentDbLog;
  /** First delay before resubscribing after a dropped subscription; doubles up to 5 s. */
  readonly resubscribeDelayMs?: number;
};

export function openKurrentDbEventStore(options: KurrentDbEventStoreOptions): EventStore {
  let client: KurrentDBClient;
  try {
    client = KurrentDBClient.connectionString(options.connectionString);
  } catch (error) {
    throw invalidConnectionString(options.connectionString, error);
  }
  return kurrentDbEventStore(
    client,
    options.log,
    options.resubscribeDelayMs ?? 100,
    `the KurrentDB server at ${withoutCredentials(options.connectionString)}`,
  );
}

/**
 * The adapter over a client made elsewhere: the tests' fake clients, which record calls. `server`
 * names the server in the details of a StoreUnavailableError.
 */
export function kurrentDbEventStore(
  client: KurrentDBClient,
  log: KurrentDbLog,
  resubscribeDelayMs = 100,
  server = 'the KurrentDB server',
): EventStore {
  return new KurrentDbEventStore(client, log, resubscribeDelayMs, server);
}

/**
 * Appends, stream reads and the head throw StoreUnavailableError where the server cannot be reached
 * or does not answer in time (see toStoreUnavailable); subscriptions resubscribe instead.
 */
class KurrentDbEventStore implements EventStore {
  readonly #client: KurrentDBClient;
  readonly #log: KurrentDbLog;
  readonly #resubscribeDelayMs: number;
  readonly #server: string;
  readonly #subscriptions = new Set<Subscription>();

  constructor(client: KurrentDBClient, log: KurrentDbLog, resubscribeDelayMs: number, server: string) {
    this.#client = client;
    this.#log = log;
    this.#resubscribeDelayMs = resubscribeDelayMs;
    this.#server = server;
  }

  async appendToStream(
    streamName: string,
    events: readonly NewEvent[],
    options: { readonly expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event.');
    const expected = options.expectedRevision ?? 'any';
    try {
      const result = await this.#client.appendToStream(streamName, events.map(toEventData), {
        streamState: toStreamState(expected),
      });
      // A client whose connection string says throwOnAppendFailure=false answers a failed
      // expected-revision check with success false instead of throwing: nothing was written. Its
      // nextExpectedRevision is then not the stream's revision (the batch append reports 1 for any
      // existing stream), so the stream's last revision is read.
      if (!result.success)
        throw new WrongExpectedRevisionError(streamName, expected, await this.#lastRevision(streamName));
      // An idempotent retry (events whose ids the stream already has) is acknowledged without a
      // position: answer with the position of the last event written the first time.
      const position =
        result.position === undefined
          ? await this.#positionOf(streamName, result.nextExpectedRevision)
          : packPosition(result.position);
      return { nextExpectedRevision: result.nextExpectedRevision, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError)
        throw toWrongExpectedRevision(streamName, expected, error);
      throw toStoreUnavailable(error, this.#server);
    }
  }

  /**
   * KurrentDB's multi-stream append (25.1 and later): one transaction over every stream, each with
   * its expected state. The server answers with each stream's revision and a log position that is
   * not the (commit, prepare) pair `$all` orders by, so the position returned is read back from the
   * last event written (from the leader): exact, and what read-your-writes may wait for.
   */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<MultiAppendResult> {
    const bad = badAppendShape(appends);
    if (bad !== undefined) throw bad;
    let result: Awaited<ReturnType<KurrentDBClient['multiStreamAppend']>>;
    try {
      result = await this.#client.multiStreamAppend(
        appends.map((append) => ({
          streamName: append.streamName,
          events: append.events.map(toMultiAppendEventData),
          expectedState: toStreamState(append.expectedRevision),
        })),
      );
    } catch (error) {
      throw toStoreUnavailable(toMultiAppendConflict(appends, error), this.#server);
    }
    const revisions = appends.map(
      (append) => result.responses.find((response) => response.streamName === append.streamName)!.revision,
    );
    const last = appends.at(-1)!;
    const position = await this.#positionOf(last.streamName, revisions.at(-1)!);
    return { position, nextExpectedRevisions: revisions };
  }

  /** The exact position of the event at `revision` of a stream, read from the leader. */
  async #positionOf(streamName: string, revision: bigint): Promise<bigint> {
    const [event] = await this.readStream(streamName, { fromRevision: revision, maxCount: 1 });
    if (event === undefined)
      throw new Error(`KurrentDB has no event ${revision} in ${streamName} after appending it.`);
    return event.position;
  }

  /** The revision of a stream's last event, read from the leader, or no_stream. */
  async #lastRevision(streamName: string): Promise<bigint | 'no_stream'> {
    const read = this.#client.readStream(streamName, {
      direction: BACKWARDS,
      fromRevision: END,
      maxCount: 1,
      requiresLeader: true,
    });
    try {
      for await (const resolved of read) {
        if (resolved.event) return resolved.event.revision;
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw toStoreUnavailable(error, this.#server);
    }
    return 'no_stream';
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const read = this.#client.readStream(streamName, {
      fromRevision: options.fromRevision ?? 0n,
      ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
      requiresLeader: true,
    });
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of read) {
        if (!resolved.event) continue;
        const event = toRecordedEvent(
          resolved.event,
          positionOf(resolved.event, resolved.commitPosition),
          this.#log,
        );
        if (event !== undefined) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw toStoreUnavailable(error, this.#server);
    }
    return events;
  }

  async *readAll(options: ReadAllOptions = {}): AsyncGenerator<RecordedEvent> {
    let start =
      options.after !== undefined
        ? { after: options.after }
        : options.from !== undefined
          ? { from: options.from }
          : undefined;
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    while (remaining > 0) {
      const page = await this.#readAllPage(start, Math.min(remaining, READ_ALL_PAGE));
      for (const event of page.events) {
        yield event;
        remaining -= 1;
        if (remaining <= 0) return;
      }
      if (page.last === undefined) return;
      start = { after: page.last };
    }
  }

  /**
   * One server read of `$all` after a position (or from one, the event there included), read to its
   * end. `last` is the position of the last event the server sent (undefined when it sent none),
   * readable or not, so that the next page starts after it.
   */
  async #readAllPage(
    start: { readonly after: bigint } | { readonly from: bigint } | undefined,
    count: number,
  ): Promise<{ events: RecordedEvent[]; last: bigint | undefined }> {
    // A read from a position includes the event at that position; `after` excludes it.
    const at = start === undefined ? undefined : 'after' in start ? start.after : start.from;
    const least = start === undefined ? 0n : 'after' in start ? start.after + 1n : start.from;
    const read = this.#client.readAll({
      ...(at === undefined ? {} : { fromPosition: unpackPosition(at) }),
      maxCount: start !== undefined && 'after' in start ? count + 1 : count,
      filter: excludeSystemEvents(),
      requiresLeader: true,
    });
    const events: RecordedEvent[] = [];
    let last: bigint | undefined;
    for await (const resolved of read) {
      if (!resolved.event) continue;
      const position = packPosition(resolved.event.position);
      if (position < least) continue;
      last = position;
      const event = toRecordedEvent(resolved.event, position, this.#log);
      if (event !== undefined) events.push(event);
    }
    return { events, last };
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): Subscription {
    const subscription = resubscribingSubscription({
      after: options.after,
      open: (after) =>
        this.#client.subscribeToAll({
          ...(after === undefined ? {} : { fromPosition: unpackPosition(after) }),
          filter: excludeSystemEvents({ checkpointReached: markFilterCheckpoint }),
          requiresLeader: true,
        }),
      log: this.#log,
      firstDelayMs: this.#resubscribeDelayMs,
      onClose: () => this.#subscriptions.delete(subscription),
      ...(options.onCheckpoint === undefined ? {} : { onCheckpoint: options.onCheckpoint }),
    });
    this.#subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<bigint | undefined> {
    const read = this.#client.readAll({
      direction: BACKWARDS,
      fromPosition: END,
      maxCount: 1,
      filter: excludeSystemEvents(),
      requiresLeader: true,
    });
    try {
      for await (const resolved of read) {
        if (resolved.event) return packPosition(resolved.event.position);
      }
    } catch (error) {
      throw toStoreUnavailable(error, this.#server);
    }
    return undefined;
  }

  /** The leader answers a read: as much as can be told without writing. */
  async checkWritable(): Promise<void> {
    await this.headPosition();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((subscription) => subscription.close()));
    await this.#client.dispose();
  }
}
