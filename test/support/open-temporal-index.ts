// Opens the temporal index of a data directory at a given instant, then exits: several run at
// once by test/read-models/temporal-index-file.int.test.ts, to race over one damaged index file.
// Prints "opened" once the index has caught up with the store, else the failure and its cause.
import path from 'node:path';
import { pino } from 'pino';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { openTemporalIndex } from '../../src/read-models/temporal-index-file.ts';

const [dataDir, startAt] = process.argv.slice(2);
const store = openSqliteEventStore({ file: path.join(dataDir!, 'events.sqlite') });
const head = await store.headPosition();
while (Date.now() < Number(startAt)); // every process opens at the same instant
try {
  const index = openTemporalIndex(
    path.join(dataDir!, 'temporal-index.sqlite'),
    store,
    pino({ level: 'silent' }),
  );
  index.start();
  if (head !== undefined) await index.waitFor(head);
  await index.stop();
  process.stdout.write('opened\n');
} catch (error) {
  process.stdout.write(`${(error as Error).message}: ${String((error as Error).cause)}\n`);
} finally {
  await store.close();
}
