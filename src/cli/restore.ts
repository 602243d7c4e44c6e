import { constants, copyFileSync, existsSync, linkSync, renameSync, rmSync, statSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { embeddedStoreFile } from '../eventstore/index.ts';
import { type IdSequence, lastReservedId, ORDER_IDS, PET_IDS } from '../domain/id-blocks.ts';
import {
  type LastEvent,
  prepareRestoredStore,
  readUnusedStore,
  type ReplacedStore,
  type RestoreEvent,
  RestoreRefusedError,
} from '../eventstore/sqlite-restore.ts';
import { systemClock } from '../shared/context.ts';
import { removeDatabaseFiles } from '../shared/sqlite-file.ts';
import { newEventMetadata } from '../shared/event-metadata.ts';
import { parseCommandLine } from './command-line.ts';
import { failureReason } from './failure-reason.ts';
import { prepareStore } from './store.ts';
import { syncFile } from './sync-file.ts';
import { CommandFailure, UsageError } from './usage-error.ts';

const KURRENTDB =
  "EVENT_STORE_URL names a KurrentDB store, which this command does not restore: use KurrentDB's own restore (see Backup under Operations in KurrentDB's server documentation)";

/**
 * `petstore restore <backup> [--after-position N]`: puts a backup (of `petstore backup`) in the
 * embedded store's place, as README's steps did by hand, without their pitfalls:
 * - it refuses while any process has the store open (SQLite tells, see readUnusedStore);
 * - it checks the backup is a whole store before anything is replaced, and never changes the backup
 *   (it restores a copy);
 * - a `-wal` or `-shm` of the replaced store cannot be applied to the backup (SQLite would, and the
 *   store would be damaged): the replaced store is kept beside, renamed with them, whole;
 * - new events take positions after the replaced store's last one (or `--after-position`), so that
 *   a position a client or a Kafka consumer learnt after the backup is never given to another event;
 * - the pet and order ids the replaced store had reserved past the backup's are reserved again in
 *   the restored store (one reservation event each), so that no id is handed out twice.
 */

/** The id sequences whose blocks a restore carries over from the store it replaces, and their streams. */
const SEQUENCES: readonly IdSequence[] = [PET_IDS, ORDER_IDS];
const SEQUENCE_STREAMS = SEQUENCES.map((sequence) => sequence.stream);

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine({
    args,
    options: { 'after-position': { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length > 1) throw new UsageError('too many arguments: name one backup');
  const backup = positionals[0];
  if (backup === undefined || backup.trim() === '') throw new UsageError('name the backup to restore');
  const afterFlag = positionOption(values['after-position']);
  const config = loadConfig(process.env);
  prepareStore(config, 'restore', 'may-create');
  if (config.eventStoreUrl !== undefined) throw new CommandFailure(KURRENTDB);
  const target = embeddedStoreFile(config.dataDir);
  refuseBackup(backup, target);

  const replaced = unusedStore(target);
  const replacedLast = typeof replaced === 'object' ? replaced.lastPosition : undefined;
  const partial = `${target}.restore-${process.pid}.partial`;
  let restored;
  try {
    copyFileSync(backup, partial, constants.COPYFILE_EXCL);
    const after = laterOf(afterFlag, replacedLast);
    restored = prepareRestoredStore(
      partial,
      after,
      afterFlag,
      (lastEvents) => (typeof replaced === 'object' ? idsToReserveAgain(replaced, lastEvents) : []),
      SEQUENCE_STREAMS,
    );
    syncFile(partial);
  } catch (error) {
    removeDatabaseFiles(partial);
    if (error instanceof RestoreRefusedError)
      throw new CommandFailure(`cannot restore ${backup}: ${error.message}`);
    throw new CommandFailure(`cannot restore ${backup}: ${failureReason(error)}`, { cause: error });
  }
  const keptAs = existsSync(target) ? setAside(target) : undefined;
  renameSync(partial, target);
  syncFile(config.dataDir);

  const holds =
    restored.lastPosition === undefined
      ? 'no events'
      : `${restored.events.toLocaleString('en')} event${restored.events === 1 ? '' : 's'}, up to position ${restored.lastPosition}`;
  const lines = [
    `${target}: restored from ${backup}: ${holds}; new events take positions after ${restored.nextAfter}`,
    ...restored.appended.map(
      ({ type, data }) =>
        `${type} ${String(data.first)}-${String(data.last)} appended: the ids the replaced store had reserved past the backup's are not handed out again`,
    ),
    keptAs === undefined
      ? 'there was no store to replace'
      : `the store it replaced is kept as ${keptAs}${replaced === 'unreadable' ? ' (it could not be read: its last position and ids are unknown; pass --after-position to skip the positions it gave)' : ''}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** What the replaced store holds that a restore keeps (see readUnusedStore); a store in use is refused in one line. */
function unusedStore(target: string): ReplacedStore | 'unreadable' | undefined {
  try {
    return readUnusedStore(target, SEQUENCE_STREAMS);
  } catch (error) {
    if (error instanceof RestoreRefusedError) throw new CommandFailure(error.message, { cause: error });
    throw error;
  }
}

/**
 * For each id sequence whose blocks the replaced store reserved past the restored one's, a
 * reservation of the ids in between: they may have been handed out after the backup.
 */
function idsToReserveAgain(
  replaced: ReplacedStore,
  restored: ReadonlyMap<string, LastEvent>,
): RestoreEvent[] {
  const events: RestoreEvent[] = [];
  const metadata = () => newEventMetadata(systemClock, { correlationId: 'petstore-restore' });
  for (const sequence of SEQUENCES) {
    const lastOf = (event: LastEvent | undefined) =>
      lastReservedId(sequence, event === undefined ? [] : [event]);
    const before = lastOf(replaced.lastEvents.get(sequence.stream));
    const now = lastOf(restored.get(sequence.stream));
    if (before <= now) continue;
    events.push({
      stream: sequence.stream,
      type: sequence.eventType,
      data: { first: now + 1, last: before },
      metadata: metadata(),
    });
  }
  return events;
}

/**
 * Where new events start: after the later of --after-position and the replaced store's last
 * position, so that a flag short of what the replaced store gave (a Kafka topic behind it) gives no
 * position twice.
 */
function laterOf(flag: bigint | undefined, replaced: bigint | undefined): bigint | undefined {
  if (flag === undefined || replaced === undefined) return flag ?? replaced;
  return flag > replaced ? flag : replaced;
}

/**
 * The largest --after-position: positions are read as JavaScript numbers, exact up to 2^53 − 1, and
 * the store must keep room for new events past it (a billion); at 2^53 − 1 every write failed.
 */
const MAX_AFTER_POSITION = BigInt(Number.MAX_SAFE_INTEGER) - 1_000_000_000n;

function positionOption(value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,19}$/.test(value) || BigInt(value) > MAX_AFTER_POSITION)
    throw new UsageError(
      `--after-position must be a position: a whole number from 0 to ${MAX_AFTER_POSITION} (room for a billion events past it)`,
    );
  return BigInt(value);
}

/** The backup must be a file, not the store itself, and alone: a -wal beside it may hold commits it lacks. */
function refuseBackup(backup: string, target: string): void {
  const stat = statSync(backup, { throwIfNoEntry: false });
  if (stat === undefined) throw new CommandFailure(`cannot restore ${backup}: there is no such file`);
  if (!stat.isFile()) throw new CommandFailure(`cannot restore ${backup}: it is not a file`);
  const store = statSync(target, { throwIfNoEntry: false });
  if (store !== undefined && store.ino === stat.ino && store.dev === stat.dev)
    throw new CommandFailure(`cannot restore ${backup}: it is the store itself`);
  if (existsSync(`${backup}-wal`))
    throw new CommandFailure(
      `cannot restore ${backup}: ${backup}-wal lies beside it, which may hold commits the file lacks (a copy of a live store, not a backup): use a backup made by petstore backup`,
    );
}

/**
 * Keeps the store, with its -wal and -shm, as `<store>.replaced-<time>`: whole, never deleted. Its
 * files get the new names as hard links first, and lose their own names only after, the -wal and
 * -shm before the store, whose name the restored store then takes in one rename: whenever the
 * command stops (Ctrl-C, a crash), a store is under the store's name, never none (a start would make
 * an empty one), and no -wal of the old store lies beside the restored one. Where the file system has
 * no hard links, renames.
 */
function setAside(target: string): string {
  const keptAs = `${target}.replaced-${new Date().toISOString().replaceAll(':', '-')}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (!existsSync(`${target}${suffix}`)) continue;
    try {
      linkSync(`${target}${suffix}`, `${keptAs}${suffix}`);
      if (suffix !== '') rmSync(`${target}${suffix}`);
    } catch {
      renameSync(`${target}${suffix}`, `${keptAs}${suffix}`);
    }
  }
  return keptAs;
}
