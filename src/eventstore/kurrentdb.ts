import {
  BACKWARDS,
  END,
  KurrentDBClient,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
} from '@kurrent/kurrentdb-client';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  MultiAppendResult,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  Subscription,
} from '../application/ports/event-store.ts';
import { packPosition, unpackPosition } from './kurrentdb-position.ts';
import {
  type KurrentDbLog,
  positionOf,
  toMultiAppendEventData,
  toEventData,
  toRecordedEvent,
  toStreamState,
  toWrongExpectedRevision,
} from './kurrentdb-mapping.ts';
import { resubscribingSubscription } from './kurrentdb-subscription.ts';

/**
 * The production event store: KurrentDB (formerly EventStoreDB), over gRPC with
 * `@kurrent/kurrentdb-client`. Positions are packed (commit, prepare) pairs, see
 * `kurrentdb-position.ts`. System events (`$`-prefixed types) are never returned.
 *
 * Reads that serve read-your-writes go to the leader (`requiresLeader`): a follower may not have
 * the write yet. `readAll`, used for audits and rebuilds, may be served by any node.
 *
 * `readAll`, subscriptions, appends and the head carry exact positions. `readStream` does too on
 * KurrentDB 22.6 and later; on older servers, which send no log position for stream reads, it
 * carries a lower bound (see `positionOf`): wait for read-your-writes on an append's position or
 * on `headPosition()`, never on a position from `readStream`.
 */

export type KurrentDbEventStoreOptions = {
  /** `kurrentdb://…` or `esdb://…` connection string. */
  readonly connectionString: string;
  /** Subscription drops and resubscriptions (warn), events skipped as unreadable (error). */
  readonly log: KurrentDbLog;
  /** First delay before resubscribing after a dropped subscription; doubles up to 5 s. */
  readonly resubscribeDelayMs?: number;
};

export function openKurrentDbEventStore(options: KurrentDbEventStoreOptions): EventStore {
  const client = KurrentDBClient.connectionString(options.connectionString);
  return kurrentDbEventStore(client, options.log, options.resubscribeDelayMs ?? 100);
}

/** The adapter over a client made elsewhere: the tests' fake clients, which record calls. */
export function kurrentDbEventStore(
  client: KurrentDBClient,
  log: KurrentDbLog,
  resubscribeDelayMs = 100,
): EventStore {
  return new KurrentDbEventStore(client, log, resubscribeDelayMs);
}

class KurrentDbEventStore implements EventStore {
  readonly #client: KurrentDBClient;
  readonly #log: KurrentDbLog;
  readonly #resubscribeDelayMs: number;
  readonly #subscriptions = new Set<Subscription>();

  constructor(client: KurrentDBClient, log: KurrentDbLog, resubscribeDelayMs: number) {
    this.#client = client;
    this.#log = log;
    this.#resubscribeDelayMs = resubscribeDelayMs;
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
      if (result.position === undefined) throw new Error(`KurrentDB returned no position for ${streamName}.`);
      return { nextExpectedRevision: result.nextExpectedRevision, position: packPosition(result.position) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError)
        throw toWrongExpectedRevision(streamName, expected, error);
      throw error;
    }
  }

  /**
   * KurrentDB's multi-stream append (25.1 and later): one transaction over every stream, each with
   * its expected state. The server answers with each stream's revision and a log position that is
   * not the (commit, prepare) pair `$all` orders by, so the position returned is read back from the
   * last event written (from the leader): exact, and what read-your-writes may wait for.
   */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<MultiAppendResult> {
    if (appends.length === 0 || appends.some((append) => append.events.length === 0)) {
      throw new Error('An append needs at least one event for each stream.');
    }
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
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      const failed = appends.find((append) => append.streamName === error.streamName) ?? appends[0]!;
      throw toWrongExpectedRevision(failed.streamName, failed.expectedRevision, error);
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
      throw error;
    }
    return events;
  }

  async *readAll(options: ReadAllOptions = {}): AsyncGenerator<RecordedEvent> {
    const after = options.after;
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    const read = this.#client.readAll({
      ...(after === undefined ? {} : { fromPosition: unpackPosition(after) }),
      filter: excludeSystemEvents(),
    });
    for await (const resolved of read) {
      if (!resolved.event) continue;
      const position = packPosition(resolved.event.position);
      // A read from a position includes the event at that position; the port excludes it.
      if (after !== undefined && position <= after) continue;
      const event = toRecordedEvent(resolved.event, position, this.#log);
      if (event === undefined) continue;
      yield event;
      remaining -= 1;
      if (remaining <= 0) return;
    }
  }

  subscribeToAll(options: { readonly after?: bigint } = {}): Subscription {
    const subscription = resubscribingSubscription({
      after: options.after,
      open: (after) =>
        this.#client.subscribeToAll({
          ...(after === undefined ? {} : { fromPosition: unpackPosition(after) }),
          filter: excludeSystemEvents(),
          requiresLeader: true,
        }),
      log: this.#log,
      firstDelayMs: this.#resubscribeDelayMs,
      onClose: () => this.#subscriptions.delete(subscription),
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
    for await (const resolved of read) {
      if (resolved.event) return packPosition(resolved.event.position);
    }
    return undefined;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((subscription) => subscription.close()));
    await this.#client.dispose();
  }
}
