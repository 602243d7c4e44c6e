import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { ExpectedRevision } from '../application/ports/event-store.ts';
import { BUSY_TIMEOUT_MS } from '../shared/sqlite-file.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import type { FromWriter, ToWriter, WireConflict, WireError, WireValue } from './sqlite-writer-protocol.ts';

/**
 * The embedded store's writer: a worker thread that owns the writing connection, so that SQLite's
 * inserts and the fsync of every commit never hold the event loop that serves reads. Every append
 * waiting when a commit ends goes into the next transaction (group commit): one fsync acknowledges
 * all of them. Expected revisions are checked inside that transaction; one that does not hold
 * fails only its own append.
 */

export type WriterData = {
  readonly file: string;
  /** Tests only: see PETSTORE_FAILPOINT in src/config.ts. */
  readonly failpoint: 'kill-between-streams' | 'store-cannot-grow' | 'writer-exits' | undefined;
};

const { file, failpoint } = workerData as WriterData;
const port = parentPort!;
const db = openSqliteDatabase(file);
// SQLite raises the limit to the file's size, then to whatever size other connections give it: this
// writer fills the pages the file has and then fails with SQLITE_FULL, as on a full disk.
if (failpoint === 'store-cannot-grow') db.exec('PRAGMA max_page_count = 1');
const streamHead = db.prepare('SELECT MAX(revision) FROM events WHERE stream = ?');
streamHead.setReturnArrays(true);
const insert = db.prepare(
  'INSERT INTO events (stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?) RETURNING position',
);
insert.setReturnArrays(true);

port.on('message', (first: ToWriter) => {
  // Everything the main thread sent while the last commit was being fsynced joins this one.
  const batches: (readonly WireValue[])[] = [];
  let closing = false;
  let probes = 0;
  for (let message: ToWriter | undefined = first; message !== undefined;) {
    if (message.kind === 'close') closing = true;
    else if (message.kind === 'probe') probes += 1;
    else batches.push(message.appends);
    message = receiveMessageOnPort(port)?.message as ToWriter | undefined;
  }
  if (batches.length > 0) {
    if (failpoint === 'writer-exits') process.exit(70); // the thread's end, as a bug in it would be
    const result = commit(batches);
    port.postMessage(result, result.kind === 'committed' ? [result.written.buffer as ArrayBuffer] : []);
  }
  // After the appends that came with them: a probe answers for the store as the next append finds it.
  if (probes > 0) {
    const answer = probe();
    for (let i = 0; i < probes; i++) port.postMessage(answer);
  }
  if (closing) {
    db.close();
    port.postMessage({ kind: 'closed' } satisfies FromWriter);
  }
});

/**
 * One transaction for all of them. An error of SQLite itself (disk full, I/O) rolls the whole group
 * back and fails every append in it, none of them acknowledged.
 */
function commit(batches: readonly (readonly WireValue[])[]): FromWriter {
  const written: bigint[] = [];
  const conflicts: WireConflict[] = [];
  try {
    db.exec('BEGIN IMMEDIATE');
    for (const batch of batches) {
      for (let at = 0; at < batch.length;) at = tryAppend(batch, at, written, conflicts);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    return { kind: 'failed', ids: batches.flatMap(appendIds), error: wireError(error) };
  }
  return { kind: 'committed', written: BigInt64Array.from(written), conflicts };
}

/**
 * How long a probe waits for a write lock another process holds: long enough for that process's
 * commit to end, short enough that the appends queued behind the probe are not held up by a lock
 * that stays taken, and that readiness (2 s for its whole check) hears write_lock_held in time.
 */
const PROBE_BUSY_TIMEOUT_MS = 500;

/**
 * Whether an append could be made now, without making one: the write lock is taken as an append
 * takes it (waiting PROBE_BUSY_TIMEOUT_MS, not the busy timeout), and the room the file may still
 * grow by is measured.
 */
function probe(): FromWriter {
  db.exec(`PRAGMA busy_timeout = ${PROBE_BUSY_TIMEOUT_MS}`);
  try {
    db.exec('BEGIN IMMEDIATE');
    const pragma = (name: string) => Number(Object.values(db.prepare(`PRAGMA ${name}`).get()!)[0]);
    const pages = pragma('max_page_count') - pragma('page_count') + pragma('freelist_count');
    const roomBytes = pages * pragma('page_size');
    db.exec('ROLLBACK');
    return { kind: 'probed', roomBytes };
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    return { kind: 'probed', error: wireError(error) };
  } finally {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

type StreamAt = { readonly name: string; readonly events: number; readonly current: bigint | 'no_stream' };

/**
 * The append that starts at `at` in the batch (see sqlite-writer-protocol.ts); returns where the
 * next one starts. Checks every stream's expected revision before writing any of its events.
 */
function tryAppend(
  batch: readonly WireValue[],
  at: number,
  written: bigint[],
  conflicts: WireConflict[],
): number {
  const id = batch[at] as number;
  const streamCount = batch[at + 1] as number;
  const streams: StreamAt[] = [];
  let conflict: WireConflict | undefined;
  let next = at + 2;
  for (let i = 0; i < streamCount; i++) {
    const name = batch[next] as string;
    const expected = batch[next + 1] as ExpectedRevision;
    const events = batch[next + 2] as number;
    const current = currentRevision(name);
    if (conflict === undefined && !holds(expected, current)) {
      conflict = { id, streamName: name, expected, actual: current };
    }
    streams.push({ name, events, current });
    next += 3 + 3 * events;
  }
  if (conflict !== undefined) {
    conflicts.push(conflict);
    return next;
  }
  written.push(BigInt(id), 0n, BigInt(streamCount));
  const positionAt = written.length - 2;
  let event = at + 2;
  for (const stream of streams) {
    let revision = stream.current === 'no_stream' ? -1 : Number(stream.current);
    event += 3;
    for (let i = 0; i < stream.events; i++, event += 3) {
      revision += 1;
      const [position] = insert.get(
        stream.name,
        revision,
        batch[event]!,
        batch[event + 1]!,
        batch[event + 2]!,
      ) as unknown as [number];
      written[positionAt] = BigInt(position);
    }
    written.push(BigInt(revision));
    if (failpoint === 'kill-between-streams' && streamCount > 1) {
      process.kill(process.pid, 'SIGKILL'); // a crash between the streams of one atomic append
    }
  }
  return next;
}

/** The ids of the appends of a batch, for failing all of them. */
function appendIds(batch: readonly WireValue[]): number[] {
  const ids: number[] = [];
  for (let at = 0; at < batch.length;) {
    ids.push(batch[at] as number);
    const streamCount = batch[at + 1] as number;
    at += 2;
    for (let i = 0; i < streamCount; i++) at += 3 + 3 * (batch[at + 2] as number);
  }
  return ids;
}

function currentRevision(streamName: string): bigint | 'no_stream' {
  const [max] = streamHead.get(streamName) as unknown as [number | null];
  return max === null ? 'no_stream' : BigInt(max);
}

function holds(expected: ExpectedRevision, current: bigint | 'no_stream'): boolean {
  return (
    expected === 'any' ||
    (expected === 'no_stream' && current === 'no_stream') ||
    (expected === 'stream_exists' && current !== 'no_stream') ||
    (typeof expected === 'bigint' && current === expected)
  );
}

function wireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, errcode, errstr } = error as Error & Record<string, unknown>;
  return { message: error.message, code, errcode, errstr };
}
