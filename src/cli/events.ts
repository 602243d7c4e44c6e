import { constants } from 'node:os';
import { UnreadableEventError } from '../application/ports/event-store.ts';
import {
  type AuditEvent,
  type EventFeedPage,
  type EventFeedQuery,
  eventFeedQueries,
} from '../application/queries/event-feed.ts';
import { pastTheStore } from '../application/queries/positions.ts';
import { loadConfig } from '../config.ts';
import { parseCommandLine } from './command-line.ts';
import { followApiKeys } from './key-names.ts';
import { LineOutput } from './output.ts';
import { openCliStore } from './store.ts';
import { UsageError } from './usage-error.ts';

/** `petstore events`: the event feed for operators, on the store PETSTORE_DATA_DIR or EVENT_STORE_URL names. */
export async function run(args: string[]): Promise<void> {
  const { values } = parseCommandLine({
    args,
    options: {
      stream: { type: 'string' },
      type: { type: 'string' },
      from: { type: 'string' },
      follow: { type: 'boolean' },
    },
  });
  if (values.from !== undefined && !/^\d{1,40}$/.test(values.from)) {
    throw new UsageError(
      `--from takes a store position (decimal digits), not ${JSON.stringify(values.from)}`,
    );
  }
  const filter = {
    ...(values.stream !== undefined && { stream: values.stream }),
    ...(values.type !== undefined && { type: values.type }),
  };
  const from = values.from === undefined ? undefined : BigInt(values.from);

  const config = loadConfig(process.env);
  const store = await openCliStore(config, 'events', 'must-exist');
  const keys = await followApiKeys(store, config);
  const output = new LineOutput();
  const stop = new AbortController();
  // Ctrl-C or SIGTERM, or a reader that has gone (no signal): stop reading, even while the pipe is full.
  let signalled: NodeJS.Signals | undefined;
  const interrupt = (signal?: NodeJS.Signals) => {
    if (typeof signal === 'string') signalled ??= signal;
    stop.abort();
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  output.gone.addEventListener('abort', () => interrupt());
  const feed = eventFeedQueries({ store, keys: keys.keys });
  try {
    const head = (await store.headPosition()) ?? 0n;
    // The event at --from P first: a position past the next one is the feed's 400, said of --from.
    if (from !== undefined && from > head + 1n) throw pastTheStore('--from', from, head);
    const events = values.follow
      ? await feed.followEvents(
          { ...filter, ...(from !== undefined && { from }), fromStart: true },
          stop.signal,
        )
      : pages(feed, filter, from, stop.signal);
    for await (const event of events) {
      // Past an event the keys' fold could not read, an actor's name may be unknown: the read stops
      // there, as it does at the event itself (a --stream read may not meet it).
      if (keys.unreadable !== undefined && BigInt(event.position) >= keys.unreadable.position)
        throw keys.unreadable;
      await output.write(JSON.stringify(event), stop.signal);
      if (stop.signal.aborted) break;
    }
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await keys.stop();
    await store.close();
  }
  // Ended at once: the lines a stalled reader has not taken would otherwise hold the process. Following
  // ends so, status 0; the events there are, cut short, are not all of them, which a script must not take
  // for the whole: 130 for SIGINT, 143 for SIGTERM, as a shell says of a command a signal ended.
  if (signalled !== undefined) process.exit(values.follow === true ? 0 : 128 + constants.signals[signalled]);
}

/** Every event there is now, a page at a time. */
async function* pages(
  feed: ReturnType<typeof eventFeedQueries>,
  filter: { stream?: string; type?: string },
  from: bigint | undefined,
  signal: AbortSignal,
) {
  // The first page from the event at --from, the next ones after the last page's cursor.
  let start: Pick<EventFeedQuery, 'from' | 'after'> = from === undefined ? {} : { from };
  while (!signal.aborted) {
    let page: EventFeedPage;
    try {
      page = await feed.eventFeed({ ...filter, ...start, limit: 100 });
    } catch (error) {
      if (!(error instanceof UnreadableEventError)) throw error;
      yield* upTo(error, await feed.followEvents({ ...filter, ...start, fromStart: true }, signal));
      if (signal.aborted) return; // interrupted meanwhile: ends as an interrupted read does
      throw error;
    }
    yield* page.events;
    if (page.nextAfter === undefined) return;
    start = { after: BigInt(page.nextAfter) };
  }
}

/**
 * A page that meets an event the store cannot read fails whole (it reads one event past its last):
 * read one at a time, the events before it are handed over, and the read fails at it. Should a
 * read get past it after all, it ends there.
 */
async function* upTo(unreadable: UnreadableEventError, events: AsyncIterable<AuditEvent>) {
  for await (const event of events) {
    if (BigInt(event.position) >= unreadable.position) return;
    yield event;
  }
}
