import { closeSync, linkSync, lstatSync, openSync, renameSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { embeddedStoreFile } from '../eventstore/index.ts';
import { BackupCopyError, backupSqliteStore, type SqliteBackup } from '../eventstore/sqlite-backup.ts';
import { removeDatabaseFiles, SQLITE_FULL, sqlitePrimaryCode } from '../shared/sqlite-file.ts';
import { parseCommandLine } from './command-line.ts';
import { failureReason } from './failure-reason.ts';
import { prepareStore } from './store.ts';
import { syncFile } from './sync-file.ts';
import { CommandFailure, UsageError } from './usage-error.ts';

const KURRENTDB =
  "EVENT_STORE_URL names a KurrentDB store, which this command does not back up: use KurrentDB's own backups (disk snapshots, or a copy of its db and index directories; see Backup under Operations in KurrentDB's server documentation)";

/**
 * `petstore backup <file>`: a consistent copy of the embedded store while servers go on writing to
 * it. The copy is made beside the file, under another name, and linked to the file's name only once
 * it is whole and on disk: an interrupted backup leaves no file under that name, and one stopped by
 * SIGINT or SIGTERM removes its unfinished copy (SIGKILL leaves `<file>.<pid>.partial`).
 */
export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine({
    args,
    options: { json: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals.length > 1) throw new UsageError('too many arguments: name one file');
  const target = positionals[0];
  if (target === undefined || target.trim() === '')
    throw new UsageError('name the file to write the backup to');
  const config = loadConfig(process.env);
  prepareStore(config, 'backup', 'must-exist');
  if (config.eventStoreUrl !== undefined) throw new CommandFailure(KURRENTDB);
  refuseExisting(target);

  const partial = `${target}.${process.pid}.partial`;
  const removePartial = () => removeDatabaseFiles(partial);
  // Interrupted (Ctrl-C, a stop): the unfinished copy goes too, and the status names the signal.
  // Listened for before the copy exists: a signal sent on seeing it must find the handler.
  const interrupted = (signal: NodeJS.Signals) => {
    removePartial();
    process.exit(128 + constants.signals[signal]);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const listenNoMore = () => {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  };
  try {
    createEmpty(partial, target);
  } catch (error) {
    listenNoMore();
    throw error;
  }
  let held: SqliteBackup;
  try {
    held = await backupSqliteStore(embeddedStoreFile(config.dataDir), partial).catch((error: unknown) => {
      throw copyFailure(error, target);
    });
    syncFile(partial);
    publish(partial, target);
  } finally {
    listenNoMore();
    removePartial();
  }
  syncFile(path.dirname(target));
  report(target, statSync(target).size, held, values.json === true);
}

/** A path that cannot be looked at (a file in the way of a directory) is for createEmpty to explain. */
function refuseExisting(target: string): void {
  let existing;
  try {
    existing = lstatSync(target, { throwIfNoEntry: false });
  } catch {
    return;
  }
  if (existing !== undefined) throw alreadyThere(target);
}

const alreadyThere = (target: string) =>
  new CommandFailure(`${target} already exists: a backup never replaces a file, name a new one`);

/** Claims the temporary name (SQLite takes an empty file as a new database). */
function createEmpty(partial: string, target: string): void {
  try {
    closeSync(openSync(partial, 'wx'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? `the directory ${path.dirname(target)} does not exist` : failureReason(error);
    throw new CommandFailure(`cannot write the backup ${target}: ${reason}`, { cause: error });
  }
}

/** The copy's failure (a full disk, an I/O error where it is written) in one line; the store's as it is. */
function copyFailure(error: unknown, target: string): unknown {
  if (!(error instanceof BackupCopyError)) return error;
  const reason =
    sqlitePrimaryCode(error.cause) === SQLITE_FULL
      ? failureReason({ code: 'ENOSPC' })
      : failureReason(error.cause);
  return new CommandFailure(`cannot write the backup ${target}: ${reason}`, { cause: error });
}

/**
 * Gives the whole copy its name. A hard link fails rather than replace a file made meanwhile; where
 * the file system has no hard links, a rename after a last look.
 */
function publish(partial: string, target: string): void {
  try {
    linkSync(partial, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyThere(target);
    refuseExisting(target);
    renameSync(partial, target);
  }
}

function report(target: string, bytes: number, held: SqliteBackup, json: boolean): void {
  if (json) {
    const lastPosition = held.lastPosition === undefined ? null : String(held.lastPosition);
    process.stdout.write(`${JSON.stringify({ file: target, bytes, events: held.events, lastPosition })}\n`);
    return;
  }
  const events =
    held.lastPosition === undefined
      ? 'no events'
      : `${held.events.toLocaleString('en')} event${held.events === 1 ? '' : 's'}, up to position ${held.lastPosition}`;
  process.stdout.write(`${target}: ${bytes.toLocaleString('en')} bytes, ${events}\n`);
}
