// Appends N events to a fresh embedded store at once, then exits: run under strace by
// test/eventstore/group-commit.int.test.ts to count the fsyncs a burst of appends costs, and to see
// which thread makes them. It prints its pid first, "opened" once the store is open, and "closing"
// once every append resolved.
import { randomUUID } from 'node:crypto';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';

const [file, count] = process.argv.slice(2);
process.stdout.write(`pid ${process.pid}\n`);
const store = openSqliteEventStore({ file: file! });
process.stdout.write('opened\n');
await store.appendToStream('warm-up', [event()]);
await Promise.all(
  Array.from({ length: Number(count) }, (_, i) => store.appendToStream(`burst-${i}`, [event()])),
);
process.stdout.write('closing\n');
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
