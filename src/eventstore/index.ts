import path from 'node:path';
import type { Config } from '../config.ts';
import type { EventStore } from './port.ts';
import { openSqliteEventStore } from './sqlite.ts';

/** Chooses the event store from configuration: KurrentDB when EVENT_STORE_URL is set, else embedded. */
export async function openEventStore(config: Pick<Config, 'dataDir' | 'eventStoreUrl'>): Promise<EventStore> {
  return openSqliteEventStore({ file: path.join(config.dataDir, 'events.sqlite') });
}
