import path from 'node:path';
import type { Config } from '../config.ts';
import type { EventStore } from './port.ts';
import { openKurrentDbEventStore } from './kurrentdb.ts';
import { openSqliteEventStore } from './sqlite.ts';

/** Chooses the event store from configuration: KurrentDB when EVENT_STORE_URL is set, else embedded. */
export async function openEventStore(config: Pick<Config, 'dataDir' | 'eventStoreUrl'>): Promise<EventStore> {
  if (config.eventStoreUrl !== undefined)
    return openKurrentDbEventStore({ connectionString: config.eventStoreUrl });
  return openSqliteEventStore({ file: path.join(config.dataDir, 'events.sqlite') });
}
