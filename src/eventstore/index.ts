import path from 'node:path';
import { pino } from 'pino';
import { type Config, ConfigError } from '../config.ts';
import { unknownOptions, unknownOptionsMessage } from './kurrentdb-connection.ts';
import type { KurrentDbLog } from './kurrentdb-mapping.ts';
import type { EventStore } from '../application/ports/event-store.ts';
import { openSqliteEventStore } from './sqlite.ts';

/**
 * Chooses the event store from configuration: KurrentDB when EVENT_STORE_URL is set, else embedded.
 * KurrentDB reports subscription drops and skipped events to `log`; without one, to a logger of
 * its own on stdout, so that they are never silent.
 */
export async function openEventStore(
  config: Pick<Config, 'dataDir' | 'eventStoreUrl'> &
    Partial<Pick<Config, 'logLevel' | 'failpoint'>> & {
      /** The embedded store must already be one (see openSqliteDatabase). */
      readonly mustExist?: boolean;
    },
  log?: KurrentDbLog,
): Promise<EventStore> {
  if (config.eventStoreUrl !== undefined) {
    // Refused here: the client would print the whole string, password included, and then ignore it.
    const unknown = unknownOptions(config.eventStoreUrl);
    if (unknown.length > 0) throw new ConfigError(unknownOptionsMessage(unknown));
    // Loaded only when used: the KurrentDB client (gRPC) adds ~0.4 s to every start-up.
    const { openKurrentDbEventStore } = await import('./kurrentdb.ts');
    return openKurrentDbEventStore({
      connectionString: config.eventStoreUrl,
      log: log ?? pino({ name: 'eventstore', level: config.logLevel ?? 'info' }),
    });
  }
  return openSqliteEventStore({
    file: embeddedStoreFile(config.dataDir),
    mustExist: config.mustExist,
    ...(config.failpoint === undefined ? {} : { failpoint: config.failpoint }),
  });
}

/** The embedded store's file in a data directory. */
export function embeddedStoreFile(dataDir: string): string {
  return path.join(dataDir, 'events.sqlite');
}
