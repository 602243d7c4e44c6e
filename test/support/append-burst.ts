// Appends N events to a fresh embedded store at once, then exits: run under strace by
// test/eventstore/group-commit.int.test.ts to count the fsyncs a burst of appends costs.
import { randomUUID } from 'node:crypto';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';

const [file, count] = process.argv.slice(2);
const store = openSqliteEventStore({ file: file! });
await store.appendToStream('warm-up', [event()]);
await Promise.all(
  Array.from({ length: Number(count) }, (_, i) => store.appendToStream(`burst-${i}`, [event()])),
);
await store.close();

function event() {
  const metadata = {
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'c',
    schemaVersion: 1,
  };
  return { type: 'Burst', data: {}, metadata };
}
