// Appends one event to an embedded store and never closes it: the process must still exit once
// the append resolved (test/eventstore/sqlite-adapter.int.test.ts).
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';

const store = openSqliteEventStore({ file: process.argv[2]! });
const metadata = { eventId: 'e', occurredAt: new Date().toISOString(), correlationId: 'c', schemaVersion: 1 };
const { position } = await store.appendToStream('left-open', [{ type: 'Appended', data: {}, metadata }]);
process.stdout.write(`appended at ${position}\n`);
