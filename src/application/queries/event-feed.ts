import { publicEventData } from '../../shared/event-data.ts';
import { ValidationError } from '../../shared/errors.ts';
import { EVENTS_PER_TURN, turnsEvery } from '../../shared/next-turn.ts';
import type { EventStore, RecordedEvent } from '../ports/event-store.ts';
import type { ApiKeyReadModel } from '../ports/read-models.ts';
import { validateLimit } from './paging.ts';
import { givenAfter } from './positions.ts';
import { EVENTS_PER_REQUEST, type PayForReads, type ReadMeter, readMeter } from './replay-cost.ts';

/**
 * One event as auditors see it: where it stands in the store, what it was, when, who did it (the
 * key's id and name, never a secret), in which request, and its data with secret material left
 * out (src/shared/event-data.ts). The feed and a stream's history show events this one way.
 */
export type AuditEvent = {
  /** Decimal string: positions outgrow JSON numbers on KurrentDB. */
  readonly position: string;
  readonly stream: string;
  readonly revision: number;
  readonly type: string;
  /** RFC 3339: when the command that recorded it was decided. */
  readonly time: string;
  /** The API key that acted; null when the CLI or the service itself did. */
  readonly actor: { readonly keyId: string; readonly name: string } | null;
  /** The X-Request-Id of the request that recorded it (the CLI's own id for the CLI). */
  readonly requestId: string;
  readonly data: Readonly<Record<string, unknown>>;
};

export type EventFeedQuery = {
  /** Events after this store position; from the start when absent. */
  readonly after?: string | bigint;
  /**
   * A reconnecting EventSource's Last-Event-ID (REST): where the feed resumes, in place of `after`,
   * which the reconnection repeats. Both are checked, `after` first.
   */
  readonly lastEventId?: string | bigint;
  /**
   * The event at this store position first, in place of `after` and Last-Event-ID (the CLI's
   * `--from`): a position the store gave. Not `after: from - 1n`, which on KurrentDB is a
   * (commit, prepare) pair no event has.
   */
  readonly from?: bigint;
  readonly type?: string;
  readonly stream?: string;
  readonly limit?: number;
};

/**
 * Where a followed feed has read to, though its filter passed over what it read: a position to
 * resume after (decimal, as an event's).
 */
export type FeedCheckpoint = { readonly checkpoint: string };

export type FollowQuery = Omit<EventFeedQuery, 'limit'> & {
  /** Without `after`: from the first event (true) or from the store's head, only what comes next. */
  readonly fromStart?: boolean;
};

export type EventFeedPage = {
  readonly events: readonly AuditEvent[];
  /** Pass as `after` for the next page; absent once the store has no more. */
  readonly nextAfter?: string;
};

/**
 * A filtered page reads at most this many events: past it, the page ends short (maybe empty) with
 * a cursor at the last event read, so that no request scans the whole store. Follow the cursor.
 */
export const FEED_SCAN_LIMIT = 10_000;

type Filter = { readonly type?: string; readonly stream?: string };

export function eventFeedQueries(deps: { readonly store: EventStore; readonly keys: ApiKeyReadModel }) {
  const { store, keys } = deps;
  /**
   * As `followEvents`, with a checkpoint after every EVENTS_PER_REQUEST events in a row that the
   * filter passed over: where a client that resumes should start, so that it reads and pays for
   * them once (REST's stream sends it as an `id:` alone, which moves a client's Last-Event-ID).
   */
  async function followFeed(
    query: FollowQuery,
    signal: AbortSignal,
    pay?: PayForReads,
  ): Promise<AsyncIterable<AuditEvent | FeedCheckpoint>> {
    const filter = validateFilter(query);
    const start = await givenStart(store, query);
    const from = start ?? (query.fromStart === true ? 'start' : 'head');
    return follow({ store, keys, filter, signal, meter: readMeter(pay, signal) }, from);
  }
  return {
    /** All events in store order, a page at a time, optionally of one type or one stream. */
    async eventFeed(query: EventFeedQuery = {}): Promise<EventFeedPage> {
      const limit = validateLimit(query.limit);
      const start = await givenStart(store, query);
      const filter = validateFilter(query);
      const { events, scannedTo, more } =
        filter.stream === undefined
          ? await scan(store, start, limit, filter)
          : await fromStream(store, filter.stream, start, limit, filter);
      const page = events.map((event) => auditEvent(event, keys));
      const nextAfter = more
        ? events.length > 0 && events.length === limit
          ? page.at(-1)!.position
          : scannedTo
        : undefined;
      return nextAfter === undefined ? { events: page } : { events: page, nextAfter };
    },
    /**
     * Every event after `after` (after the store's head when absent: only what comes next), live,
     * until `signal` aborts. The query is checked before it resolves (a stream's answer starts only
     * then); the events are pulled: a consumer that reads slowly slows its own subscription, and
     * nothing piles up in memory. The events up to the head as it was when asked, a replay, are
     * paid for with `pay` as they are read (see replay-cost.ts).
     */
    async followEvents(
      query: FollowQuery,
      signal: AbortSignal,
      pay?: PayForReads,
    ): Promise<AsyncIterable<AuditEvent>> {
      return withoutCheckpoints(await followFeed(query, signal, pay));
    },
    followFeed,
  };
}

/** Where a read starts: after a position, or from one, the event there included; the first event when absent. */
type Start = { readonly after: bigint } | { readonly from: bigint } | undefined;

async function givenStart(store: EventStore, query: EventFeedQuery): Promise<Start> {
  if (query.from !== undefined) return { from: query.from };
  const after = await givenAfter(store, query);
  return after === undefined ? undefined : { after };
}

type Following = {
  readonly store: EventStore;
  readonly keys: ApiKeyReadModel;
  readonly filter: Filter;
  readonly signal: AbortSignal;
  readonly meter: ReadMeter;
};

async function* follow(
  following: Following,
  start: NonNullable<Start> | 'start' | 'head',
): AsyncGenerator<AuditEvent | FeedCheckpoint> {
  const { store, keys, filter, signal, meter } = following;
  const head = await store.headPosition();
  // A replay, what is read up to the head as it is now, is paid for; what comes next is not.
  const replayTo = start === 'head' ? undefined : head;
  let after: bigint | undefined;
  if (start === 'head') after = head;
  else if (start !== 'start' && 'after' in start) after = start.after;
  else if (start !== 'start') {
    // The event at `from` (or the first past it) is read, and the subscription goes on after it;
    // when there is none yet, after the head read first, so that nothing written meanwhile is missed.
    let first: RecordedEvent | undefined;
    for await (const event of store.readAll({ from: start.from, maxCount: 1 })) first = event;
    if (first !== undefined && matches(first, filter)) yield auditEvent(first, keys);
    after = first?.position ?? head;
  }
  if (signal.aborted) return;
  const subscription = store.subscribeToAll(after === undefined ? {} : { after });
  const close = () => void subscription.close();
  signal.addEventListener('abort', close, { once: true });
  // Turns by events read, not delivered: a filter that passes over a million events delivers
  // nothing, and the consumer's turns (every 64 events it sends) never came.
  const turn = turnsEvery(EVENTS_PER_TURN);
  try {
    let passedOver = 0;
    for await (const batch of subscription.batches()) {
      // Paid for before any of it is delivered.
      if (replayTo !== undefined && batch.length > 0 && batch[0]!.position <= replayTo)
        await meter(countUpTo(batch, replayTo));
      for (const event of batch) {
        if (matches(event, filter)) {
          passedOver = 0;
          yield auditEvent(event, keys);
        } else if (++passedOver === EVENTS_PER_REQUEST) {
          passedOver = 0;
          yield { checkpoint: event.position.toString() };
        }
      }
      const turned = turn(batch.length);
      if (turned !== undefined) await turned;
    }
  } finally {
    signal.removeEventListener('abort', close);
    await subscription.close();
  }
}

async function* withoutCheckpoints(items: AsyncIterable<AuditEvent | FeedCheckpoint>) {
  for await (const item of items) if (!isCheckpoint(item)) yield item;
}

export function isCheckpoint(item: AuditEvent | FeedCheckpoint): item is FeedCheckpoint {
  return 'checkpoint' in item;
}

/** How many of a batch's events are at `position` or before it. */
function countUpTo(batch: readonly RecordedEvent[], position: bigint): number {
  if (batch.at(-1)!.position <= position) return batch.length;
  let count = 0;
  while (count < batch.length && batch[count]!.position <= position) count += 1;
  return count;
}

export function auditEvent(event: RecordedEvent, keys: Pick<ApiKeyReadModel, 'byId'>): AuditEvent {
  const { apiKeyId, occurredAt, correlationId } = event.metadata;
  return {
    position: event.position.toString(),
    stream: event.streamName,
    revision: Number(event.revision),
    type: event.type,
    time: occurredAt,
    actor: apiKeyId === undefined ? null : { keyId: apiKeyId, name: keys.byId(apiKeyId)?.name ?? '' },
    requestId: correlationId,
    data: publicEventData(event.data),
  };
}

type Scanned = {
  readonly events: RecordedEvent[];
  readonly scannedTo: string | undefined;
  readonly more: boolean;
};

/** The first `limit` matching events from `start`, reading at most FEED_SCAN_LIMIT (or limit + 1 unfiltered). */
async function scan(store: EventStore, start: Start, limit: number, filter: Filter): Promise<Scanned> {
  const events: RecordedEvent[] = [];
  let read = 0;
  let last: RecordedEvent | undefined;
  const budget = filter.type === undefined ? limit + 1 : FEED_SCAN_LIMIT + 1;
  // A filtered page reads up to FEED_SCAN_LIMIT events: in one go, 20-55 ms of the event loop.
  const turn = turnsEvery(EVENTS_PER_TURN);
  for await (const event of store.readAll({ ...start, maxCount: budget })) {
    const turned = turn(1);
    if (turned !== undefined) await turned;
    if (events.length === limit && matches(event, filter))
      return { events, scannedTo: undefined, more: true };
    read += 1;
    last = event;
    if (matches(event, filter)) events.push(event);
  }
  // Read to the budget without another match: there may be more past it.
  return { events, scannedTo: last?.position.toString(), more: read === budget };
}

/**
 * One stream's first `limit` matching events from a start. A stream may be long (a pet renamed
 * every day for years), so it is not read whole: the read starts at the first revision at or past
 * the start, found by a search over revisions, and reads no more than an unfiltered page (limit + 1),
 * or FEED_SCAN_LIMIT events with a type filter, as `scan` does.
 */
async function fromStream(
  store: EventStore,
  stream: string,
  start: Start,
  limit: number,
  filter: Filter,
): Promise<Scanned> {
  const least = start === undefined ? undefined : 'after' in start ? start.after + 1n : start.from;
  const fromRevision = least === undefined ? 0n : await firstRevisionAt(store, stream, least);
  const budget = filter.type === undefined ? limit + 1 : FEED_SCAN_LIMIT + 1;
  const read = await store.readStream(stream, { fromRevision, maxCount: budget });
  const events = read.filter(
    (event) => (least === undefined || event.position >= least) && matches(event, filter),
  );
  if (events.length > limit) return { events: events.slice(0, limit), scannedTo: undefined, more: true };
  // Read to the budget without another match: there may be more past it.
  const more = read.length === budget;
  return { events, scannedTo: more ? read.at(-1)!.position.toString() : undefined, more };
}

/**
 * The first revision of a stream whose position is `least` or more (its length when none is):
 * positions grow with revisions, so a search over revisions finds it in a few one-event reads.
 */
async function firstRevisionAt(store: EventStore, stream: string, least: bigint): Promise<bigint> {
  const reaches = async (revision: bigint) => {
    const [event] = await store.readStream(stream, { fromRevision: revision, maxCount: 1 });
    return event === undefined || event.position >= least;
  };
  if (await reaches(0n)) return 0n;
  let short = 0n; // a revision known to be before `least`
  let step = 1n;
  while (!(await reaches(short + step))) {
    short += step;
    step *= 2n;
  }
  let reached = short + step;
  while (reached - short > 1n) {
    const middle = (short + reached) / 2n;
    if (await reaches(middle)) reached = middle;
    else short = middle;
  }
  return reached;
}

function matches(event: RecordedEvent, filter: Filter): boolean {
  return (
    (filter.type === undefined || event.type === filter.type) &&
    (filter.stream === undefined || event.streamName === filter.stream)
  );
}

function validateFilter(query: Filter): Filter {
  for (const field of ['type', 'stream'] as const) {
    const value = query[field];
    if (value !== undefined && (value.length === 0 || value.length > 200)) {
      throw new ValidationError(`${field} must be 1 to 200 characters.`, field);
    }
  }
  return {
    ...(query.type !== undefined && { type: query.type }),
    ...(query.stream !== undefined && { stream: query.stream }),
  };
}
