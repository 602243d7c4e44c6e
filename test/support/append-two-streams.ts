// Appends to two streams at once through an embedded store opened with the test-only failpoint
// `kill-between-streams`: the process is killed after the first stream's event is written and
// before the commit (test/eventstore/sqlite-adapter.int.test.ts).
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';

const store = openSqliteEventStore({ file: process.argv[2]!, failpoint: 'kill-between-streams' });
const metadata = { eventId: 'e', occurredAt: new Date().toISOString(), correlationId: 'c', schemaVersion: 1 };
await store.appendToStreams([
  {
    streamName: 'order-1',
    events: [{ type: 'OrderPlaced', data: {}, metadata }],
    expectedRevision: 'no_stream',
  },
  {
    streamName: 'pet-1',
    events: [{ type: 'PetStatusChanged', data: {}, metadata }],
    expectedRevision: 'any',
  },
]);
process.stdout.write('appended: the failpoint did not fire\n');
