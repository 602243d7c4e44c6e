import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  EventStore,
  ReadAllOptions,
  SubscribeToAllOptions,
} from '../../src/application/ports/event-store.ts';
import { eventFeedQueries } from '../../src/application/queries/event-feed.ts';
import { openDataDirStore, seedPets } from '../support/seed-store.ts';
import { storeWith } from '../support/store-with.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * `petstore events --from P` starts at the event at P. On KurrentDB a position minus one is a
 * (commit, prepare) pair no event has, so the feed must ask the store from P itself, never after
 * P - 1: these tests record what the feed asks a real (SQLite) store.
 */

let temp: ReturnType<typeof makeTempDir>;
let sqlite: EventStore;

beforeAll(async () => {
  temp = makeTempDir();
  sqlite = openDataDirStore(temp.dir);
  await seedPets(sqlite, 10);
});
afterAll(async () => {
  await sqlite.close();
  temp.remove();
});

/** The store, recording every readAll and subscribeToAll it is asked for. */
function recording() {
  const reads: ReadAllOptions[] = [];
  const subscriptions: SubscribeToAllOptions[] = [];
  const store = storeWith(sqlite, {
    readAll: (options = {}) => (reads.push(options), sqlite.readAll(options)),
    subscribeToAll: (options = {}) => (subscriptions.push(options), sqlite.subscribeToAll(options)),
  });
  return {
    feed: eventFeedQueries({ store, keys: { byId: () => undefined } as never }),
    reads,
    subscriptions,
  };
}

describe('the event feed from a position (petstore events --from)', () => {
  it('pages from the event at the position, asking the store from that very position', async () => {
    const { feed, reads } = recording();
    const page = await feed.eventFeed({ from: 5n, limit: 2 });
    expect(page.events.map((event) => event.position)).toEqual(['5', '6']);
    expect(page.nextAfter).toBe('6');
    expect(reads).toEqual([{ from: 5n, maxCount: 3 }]);
  });

  it('follows from the event at the position: reads that one event, then subscribes after it', async () => {
    const { feed, reads, subscriptions } = recording();
    const stop = new AbortController();
    const seen: string[] = [];
    for await (const event of await feed.followEvents({ from: 5n }, stop.signal)) {
      seen.push(event.position);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(['5', '6', '7']);
    expect(reads).toEqual([{ from: 5n, maxCount: 1 }]);
    expect(subscriptions).toEqual([{ after: 5n }]);
  });

  it('follows from the next position, which no event has yet, by subscribing after the head', async () => {
    const { feed, subscriptions } = recording();
    const stop = new AbortController();
    const events = (await feed.followEvents({ from: 12n }, stop.signal))[Symbol.asyncIterator]();
    const next = events.next();
    await sqlite.appendToStream('pet-11', [
      {
        type: 'PetCreated',
        data: { id: 11, name: 'Rex', status: 'available' },
        metadata: {
          eventId: 'e-11',
          occurredAt: '2026-11-26T18:00:00.000Z',
          correlationId: 'c',
          schemaVersion: 1,
        },
      },
    ]);
    expect((await next).value).toMatchObject({ position: '12', stream: 'pet-11' });
    stop.abort();
    await events.return?.();
    expect(subscriptions).toEqual([{ after: 11n }]);
  });
});
