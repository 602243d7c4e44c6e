import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  type EventStore,
  StoreUnavailableError,
  type StoreUnavailableReason,
} from '../application/ports/event-store.ts';
import type { Config } from '../config.ts';
import { embeddedStoreFile, openEventStore } from '../eventstore/index.ts';
import { withoutCredentials } from '../eventstore/kurrentdb-connection.ts';
import { NotAnEventStoreError } from '../eventstore/sqlite-database.ts';
import { freeBytesBeside, sqliteCodeOnDisk } from '../eventstore/sqlite-unavailable.ts';
import { TemporalIndexFileError } from '../read-models/temporal-index-file.ts';
import { failureReason } from './failure-reason.ts';
import { CommandFailure } from './usage-error.ts';

/**
 * The store a command works on, said on stderr before it is opened, so that an operator in the
 * wrong directory sees at once which store that is. Only `start` and commands that write a new
 * stream (`keys create`) may create an embedded store; the others refuse a store that is not there
 * rather than leave an empty `.data` wherever they were run.
 */
export type StoreAccess = 'may-create' | 'must-exist';

type StoreConfig = Pick<Config, 'dataDir' | 'eventStoreUrl'> & Partial<Pick<Config, 'logLevel'>>;

/** What the last prepared store was called, for messages about failures found later. */
let described = 'the event store';

export function describeStore(config: StoreConfig): string {
  if (config.eventStoreUrl !== undefined) return withoutCredentials(config.eventStoreUrl);
  return embeddedStoreFile(config.dataDir);
}

/** Names the store on stderr and checks that the command may use it; throws CommandFailure. */
export function prepareStore(config: StoreConfig, command: string, access: StoreAccess): void {
  described = describeStore(config);
  process.stderr.write(`petstore ${command}: store ${described}\n`);
  if (config.eventStoreUrl !== undefined) return;
  if (access === 'may-create') return ensureDataDir(config.dataDir);
  const file = statSync(embeddedStoreFile(config.dataDir), { throwIfNoEntry: false });
  if (file === undefined) {
    throw new CommandFailure(
      `there is no store at ${described}: run this where its .data directory is, or set PETSTORE_DATA_DIR`,
    );
  }
  // SQLite would make an empty file a new store: a command that must not create one leaves it be.
  if (file.isFile() && file.size === 0) {
    throw new CommandFailure(
      `${described} is an empty file, not a store: restore it from a backup, or point PETSTORE_DATA_DIR elsewhere`,
    );
  }
}

export async function openCliStore(
  config: StoreConfig,
  command: string,
  access: StoreAccess,
): Promise<EventStore> {
  prepareStore(config, command, access);
  try {
    return await openEventStore({ ...config, mustExist: access === 'must-exist' });
  } catch (error) {
    throw storeFailure(error) ?? error;
  }
}

/**
 * Creates the data directory one level at a time. `mkdirSync(…, { recursive: true })` loops forever
 * where the kernel answers ENOENT for a parent that exists (/proc): a directory there must fail at once.
 */
export function ensureDataDir(dir: string): void {
  const missing: string[] = [];
  let existing = path.resolve(dir);
  try {
    while (statSync(existing, { throwIfNoEntry: false }) === undefined) {
      missing.unshift(existing);
      existing = path.dirname(existing);
    }
    if (!statSync(existing).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
    for (const level of missing) mkdirSync(level);
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new CommandFailure(`cannot use ${dir} as the data directory: ${failureReason(error)}`, {
      cause: error,
    });
  }
}

/**
 * Refuses, for a command that writes to the embedded store (`start`), a store file that exists but
 * that this user may not write: SQLite opens such a file read-only without a word, and the server
 * would listen, answer ready, and fail every write with a 500. It does the same when the store's
 * -wal or -shm file (left by a process of another user that did not close the store) is one this
 * user may not write. (The other commands that write find out at their first write, and read-only
 * ones may read such a store.)
 */
export function ensureWritableStore(config: StoreConfig): void {
  if (config.eventStoreUrl !== undefined) return;
  const file = embeddedStoreFile(config.dataDir);
  const parts = [
    { path: file, name: 'it is' },
    { path: `${file}-wal`, name: 'its -wal file is' },
    { path: `${file}-shm`, name: 'its -shm file is' },
  ];
  for (const part of parts) {
    if (statSync(part.path, { throwIfNoEntry: false })?.isFile() !== true) continue;
    try {
      accessSync(part.path, constants.R_OK | constants.W_OK);
    } catch (error) {
      const why =
        (error as NodeJS.ErrnoException).code === 'EROFS'
          ? 'its file system is mounted read-only'
          : `${part.name} read-only for this user`;
      throw new CommandFailure(`cannot use the event store ${file}: ${why}. ${REACH}`, { cause: error });
    }
  }
}

/**
 * SQLite's primary result codes (the low byte of an extended one) that an operator must act on:
 * what each says of a file, and what to do about the event store. A backup is advice only for a
 * file that is not a sound store: restoring one loses every event since it was taken, and mends
 * nothing where the file is sound but cannot be reached (permissions, a read-only mount, a full disk).
 */
const RESTORE = 'Restore it from a backup, or point PETSTORE_DATA_DIR elsewhere.';
const REACH =
  'Check that it is a file this user may read and write, in a directory it may write (SQLite keeps its -wal and -shm files beside it), on a file system not mounted read-only.';
const SQLITE_FAILURES: Record<number, { readonly what: string; readonly advice: string }> = {
  8: { what: 'it is read-only for this user', advice: REACH },
  10: {
    what: 'the disk failed to read or write it',
    advice: 'Check the disk; if the file itself is damaged, restore it from a backup.',
  },
  11: { what: 'it is damaged', advice: RESTORE },
  13: { what: 'the disk is full', advice: 'Free some space on its file system.' },
  14: { what: 'it cannot be opened', advice: REACH },
  26: { what: 'it is not a SQLite database', advice: RESTORE },
};

/** What to do about a write the store refused for now, by its reason (StoreUnavailableError). */
const UNAVAILABLE_ADVICE: Record<StoreUnavailableReason, string> = {
  disk_full: 'Free some space on its file system.',
  write_lock_held: 'Run the command again once that process has let go.',
  unreachable: 'Run the command again once it answers.',
};

/**
 * The one-line explanation of a store that cannot be used, or undefined for another failure. The
 * temporal index, a file derived from the store, is named as itself: restoring the store from a
 * backup would lose every event since, and would not mend the index.
 */
export function storeFailure(
  error: unknown,
  freeBytes: (file: string) => number | undefined = freeBytesBeside,
): CommandFailure | undefined {
  // A write the store refused for now (a full disk): said in SQLite's or the client's words, as at
  // opening; where they have none (a held lock, a server that did not answer), in the store's detail.
  if (error instanceof StoreUnavailableError) {
    return (
      storeFailure(error.cause, freeBytes) ??
      new CommandFailure(
        `cannot write to the event store ${described} for now: ${error.detail}. ${UNAVAILABLE_ADVICE[error.reason]}`,
        { cause: error },
      )
    );
  }
  if (error instanceof TemporalIndexFileError) {
    return new CommandFailure(
      `${error.message}: ${sqliteFailure(error.cause, () => freeBytes(described))?.reason ?? failureReason(error.cause)}. It is derived from the events: delete it to rebuild it.`,
      { cause: error },
    );
  }
  if (error instanceof NotAnEventStoreError) {
    const what =
      error.tables.length === 0
        ? 'it is a SQLite database with no tables, not a store (a copy of one taken without its -wal file?)'
        : `it is a SQLite database without an events table (its tables: ${error.tables.join(', ')}), not a store`;
    return new CommandFailure(`cannot use the event store ${described}: ${what}. ${RESTORE}`, {
      cause: error,
    });
  }
  if ((error as { type?: unknown } | undefined)?.type === 'unavailable') {
    // The KurrentDB client's UnavailableError: nothing answered at the URL (a message of one word).
    return new CommandFailure(
      `the KurrentDB server at ${described} cannot be reached: check that it runs and that EVENT_STORE_URL names it`,
      { cause: error },
    );
  }
  const failure = sqliteFailure(error, () => freeBytes(described));
  if (failure === undefined) return undefined;
  return new CommandFailure(`cannot use the event store ${described}: ${failure.reason}. ${failure.advice}`, {
    cause: error,
  });
}

/**
 * What SQLite's error says of the file, with SQLite's own words, and what to do about the event
 * store; undefined for another failure.
 */
function sqliteFailure(
  error: unknown,
  freeBytes: () => number | undefined = () => undefined,
): { reason: string; advice: string } | undefined {
  // A full disk's I/O error is said as a full disk: advice to check the disk and restore a backup
  // would lose every event since it, where freeing space mends it.
  const code = sqliteCodeOnDisk(error, freeBytes);
  const failure = code === undefined ? undefined : SQLITE_FAILURES[code];
  if (failure === undefined) return undefined;
  const reason = `${failure.what} (SQLite: ${String((error as { errstr?: unknown }).errstr)})`;
  return { reason, advice: failure.advice };
}
