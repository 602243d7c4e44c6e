import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventStore, Subscription } from '../../src/application/ports/event-store.ts';
import { eventFeedQueries, FEED_SCAN_LIMIT } from '../../src/application/queries/event-feed.ts';
import { EVENTS_PER_TURN } from '../../src/shared/next-turn.ts';
import { appendNoise, openDataDirStore, seedPets } from '../support/seed-store.ts';
import { storeWith } from '../support/store-with.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * The feed filtered by type over a store that holds few such events: the reads it makes, not the
 * events it delivers, give the event loop its turns. Followed with `type=ApiKeyBanned` from position
 * 1, a store of a million pets delivered nothing for a million events and held every other request
 * for seconds (2.4 s of CPU); a page, bounded to FEED_SCAN_LIMIT events, held it 20-55 ms.
 */

let temp: ReturnType<typeof makeTempDir>;
let sqlite: EventStore;
/** The position of pet 1's creation: the feed is followed after it. */
let afterPet1: string;

beforeAll(async () => {
  temp = makeTempDir();
  sqlite = openDataDirStore(temp.dir);
  await seedPets(sqlite, 1);
  afterPet1 = String(await sqlite.headPosition());
  await appendNoise(sqlite, 20_000);
  await seedPets(sqlite, 1, 2);
});
afterAll(async () => {
  await sqlite.close();
  temp.remove();
});

/** The store, counting the events its subscriptions and reads hand out. */
function counting() {
  const counted = { read: 0 };
  const store = storeWith(sqlite, {
    readAll: async function* (options) {
      for await (const event of sqlite.readAll(options)) {
        counted.read += 1;
        yield event;
      }
    },
    subscribeToAll: (options) => {
      const subscription = sqlite.subscribeToAll(options);
      async function* batches() {
        for await (const batch of subscription.batches()) {
          counted.read += batch.length;
          yield batch;
        }
      }
      return { ...subscription, batches, close: () => subscription.close() } as Subscription;
    },
  });
  return { feed: eventFeedQueries({ store, keys: { byId: () => undefined } as never }), counted };
}

it('lets the event loop take its other work while its filter passes over events it does not deliver', async () => {
  const { feed, counted } = counting();
  const stop = new AbortController();
  let readWhenOtherWorkRan: number | undefined;
  const events = await feed.followEvents({ after: afterPet1, type: 'PetCreated' }, stop.signal);
  setImmediate(() => (readWhenOtherWorkRan = counted.read));
  for await (const event of events) {
    expect(event.stream).toBe('pet-2');
    break;
  }
  stop.abort();
  expect(counted.read).toBeGreaterThan(20_000);
  expect(readWhenOtherWorkRan).toBeLessThanOrEqual(EVENTS_PER_TURN);
});

it('lets the event loop take its other work while a filtered page reads up to its bound', async () => {
  const { feed, counted } = counting();
  let readWhenOtherWorkRan: number | undefined;
  const page = feed.eventFeed({ after: afterPet1, type: 'PetCreated' });
  setImmediate(() => (readWhenOtherWorkRan = counted.read));
  expect((await page).events).toEqual([]);
  expect(counted.read).toBe(FEED_SCAN_LIMIT + 1);
  expect(readWhenOtherWorkRan).toBeLessThanOrEqual(EVENTS_PER_TURN);
});
