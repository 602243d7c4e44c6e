import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  type EventStore,
  type RecordedEvent,
  UnreadableEventError,
} from '../../src/application/ports/event-store.ts';
import { seedDataDir } from '../../bench/seed.ts';
import { rewriteEvent } from '../support/damage.ts';
import { openDataDirStore } from '../support/seed-store.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * An event of the embedded store that is not what the service writes (data or metadata that is not
 * a JSON object) stops a read there, naming the event, rather than failing later in whatever used it.
 */

let temp: ReturnType<typeof makeTempDir>;
let store: EventStore | undefined;
beforeEach(async () => {
  temp = makeTempDir();
  await seedDataDir(temp.dir, 10); // position 1: the id block; pet n at position n + 1
});
afterEach(async () => {
  await store?.close();
  temp.remove();
});

const open = async () => {
  store = openDataDirStore(temp.dir);
  return store;
};
const file = () => path.join(temp.dir, 'events.sqlite');

/** The positions read before the read failed, and its error. */
async function readAllOf(events: AsyncIterable<RecordedEvent>): Promise<[bigint[], unknown]> {
  const read: bigint[] = [];
  try {
    for await (const event of events) read.push(event.position);
    return [read, 'read to the end'];
  } catch (error) {
    return [read, error];
  }
}

it('reads every event up to one whose data is not JSON, then stops naming its position, stream, revision and type', async () => {
  rewriteEvent(file(), 5, 'data', '{not json');
  const [read, failure] = await readAllOf((await open()).readAll());
  expect(read).toEqual([1n, 2n, 3n, 4n]);
  expect(failure).toBeInstanceOf(UnreadableEventError);
  expect((failure as UnreadableEventError).message).toBe(
    "The event at position 5 (stream pet-4, revision 0, PetCreated) cannot be read: its data is not JSON (Expected property name or '}' in JSON at position 1 (line 1 column 2)). " +
      'The service writes no such event: the store was changed outside it. Restore the store from a backup.',
  );
});

it('names the stream of such an event in a lean subscription too, which reads stream names only when asked', async () => {
  rewriteEvent(file(), 3, 'data', '[1,2]');
  const subscription = (await open()).subscribeToAll({ lean: true });
  const [, failure] = await readAllOf(subscription);
  await subscription.close();
  expect((failure as Error).message).toMatch(
    /^The event at position 3 \(stream pet-2, revision 0, PetCreated\) cannot be read: its data is an array, not a JSON object\. /,
  );
});

it('refuses metadata that is null when it is asked for, and not before', async () => {
  rewriteEvent(file(), 4, 'metadata', 'null');
  const [event] = await (await open()).readStream('pet-3');
  expect(event!.data).toMatchObject({ id: 3 });
  expect(() => event!.metadata).toThrow(
    'The event at position 4 (stream pet-3, revision 0, PetCreated) cannot be read: its metadata is null, not a JSON object.',
  );
});
