import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { ExpectedRevision } from '../application/ports/event-store.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import type { FromWriter, ToWriter, WireAppend, WireError, WireOutcome } from './sqlite-writer-protocol.ts';

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
  readonly failpoint: 'kill-between-streams' | undefined;
};

const { file, failpoint } = workerData as WriterData;
const port = parentPort!;
const db = openSqliteDatabase(file);
const streamHead = db.prepare('SELECT MAX(revision) FROM events WHERE stream = ?');
streamHead.setReturnArrays(true);
const insert = db.prepare(
  'INSERT INTO events (stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?) RETURNING position',
);
insert.setReturnArrays(true);

port.on('message', (first: ToWriter) => {
  // Everything the main thread sent while the last commit was being fsynced joins this one.
  const appends: WireAppend[] = [];
  let closing = false;
  for (let message: ToWriter | undefined = first; message !== undefined;) {
    if (message.kind === 'close') closing = true;
    else for (const append of message.appends) appends.push(append);
    message = receiveMessageOnPort(port)?.message as ToWriter | undefined;
  }
  if (appends.length > 0) port.postMessage(commit(appends) satisfies FromWriter);
  if (closing) {
    db.close();
    port.postMessage({ kind: 'closed' } satisfies FromWriter);
  }
});

/**
 * One transaction for all of them. An error of SQLite itself (disk full, I/O) rolls the whole group
 * back and fails every append in it, none of them acknowledged.
 */
function commit(appends: readonly WireAppend[]): FromWriter {
  const outcomes: WireOutcome[] = [];
  try {
    db.exec('BEGIN IMMEDIATE');
    for (const append of appends) outcomes.push(tryAppend(append));
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    return { kind: 'failed', ids: appends.map(([id]) => id), error: wireError(error) };
  }
  return { kind: 'committed', outcomes };
}

/** Checks every stream's expected revision before writing any event of the append. */
function tryAppend([id, streams]: WireAppend): WireOutcome {
  const currents = streams.map(([streamName]) => currentRevision(streamName));
  for (const [i, [streamName, expected]] of streams.entries()) {
    const actual = currents[i]!;
    if (!holds(expected, actual)) return { id, conflict: { streamName, expected, actual } };
  }
  let position = 0;
  const revisions = streams.map(([streamName, , events], i) => {
    const current = currents[i]!;
    let revision = current === 'no_stream' ? -1 : Number(current);
    for (const [type, data, metadata] of events) {
      revision += 1;
      [position] = insert.get(streamName, revision, type, data, metadata) as unknown as [number];
    }
    if (failpoint === 'kill-between-streams' && streams.length > 1) {
      process.kill(process.pid, 'SIGKILL'); // a crash between the streams of one atomic append
    }
    return BigInt(revision);
  });
  return { id, revisions, position: BigInt(position) };
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
