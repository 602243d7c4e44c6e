import path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  type MultiAppendResult,
  type StreamAppend,
  StoreBrokenError,
  StoreUnavailableError,
  WrongExpectedRevisionError,
} from '../application/ports/event-store.ts';
import { freeBytesBeside, sqliteStoreUnavailable } from './sqlite-unavailable.ts';
import type { FromWriter, ToWriter, WireError, WireValue } from './sqlite-writer-protocol.ts';
import type { WriterData } from './sqlite-writer-worker.ts';

/**
 * The writer thread's module, beside this one: TypeScript when the sources run, JavaScript in the
 * bundle of `npm run build` (dist/, where rolldown.config.ts makes it an entry of its own).
 */
const WRITER_MODULE = new URL(
  `./sqlite-writer-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

type Pending<T = MultiAppendResult> = {
  readonly resolve: (result: T) => void;
  readonly reject: (error: unknown) => void;
};

/**
 * The room a probe must find, on the disk and under SQLite's page limit alike, for the store to take
 * writes again: a few hundred events. Less, and the next append would most likely fail as well.
 */
export const PROBE_MIN_ROOM_BYTES = 256 * 1024;

export type SqliteWriterOptions = WriterData & {
  /** Runs after each commit, once the appends in it are resolved: wakes this process's readers. */
  readonly onCommit: () => void;
};

/**
 * The main thread's side of the writer thread (`sqlite-writer-worker.ts`). Appends travel in one
 * message per commit: those made while a commit is under way wait here and leave together as soon
 * as it is reported (one message per turn of the event loop cost more CPU, for messages the
 * writer then read all at once). Each resolves only once the writer reports its transaction
 * committed, which with `synchronous=FULL` means fsynced. The thread starts with the
 * first append or probe (a command that only reads never starts it; the server probes as it starts,
 * see service.ts) and keeps the process alive only while appends are in flight, as a pending write
 * to a socket would.
 */
export class SqliteWriter {
  readonly #workerData: WriterData;
  #worker: Worker | undefined;
  readonly #onCommit: () => void;
  readonly #pending = new Map<number, Pending>();
  /** Probes sent, answered in the order they were sent. */
  readonly #probes: Pending<void>[] = [];
  readonly #closed = Promise.withResolvers<void>();
  #queue: WireValue[] = [];
  #nextId = 1;
  #flushScheduled = false;
  /** A message of appends is with the writer and its commit not reported yet. */
  #committing = false;
  #closing: Promise<void> | undefined;
  #failure: Error | undefined;

  constructor(options: SqliteWriterOptions) {
    this.#onCommit = options.onCommit;
    this.#workerData = { file: options.file, failpoint: options.failpoint };
  }

  #started(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(WRITER_MODULE, {
      workerData: this.#workerData,
    });
    worker.on('message', (message: FromWriter) => this.#onMessage(message));
    worker.on('error', (error) => this.#fail(this.#broken(`failed: ${error.message}`, error)));
    worker.on('exit', (code) => this.#fail(this.#broken(`stopped (exit ${code})`)));
    this.#worker = worker;
    return worker;
  }

  append(appends: readonly StreamAppend[]): Promise<MultiAppendResult> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#closing !== undefined) return Promise.reject(new Error('The event store is closed.'));
    const id = this.#nextId++;
    const start = this.#queue.length;
    try {
      this.#encode(id, appends);
    } catch (error) {
      // An event that cannot be serialised (a BigInt, a cycle) fails its own append, not the group.
      this.#queue.length = start;
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) this.#started().ref();
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /**
   * Resolves when an append could be made now: the writer takes the write lock and finds room to
   * grow the file by PROBE_MIN_ROOM_BYTES, on the disk too. Rejects with StoreUnavailableError
   * when not. Writes nothing.
   */
  probe(): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#closing !== undefined) return Promise.reject(new Error('The event store is closed.'));
    return new Promise((resolve, reject) => {
      this.#probes.push({ resolve, reject });
      this.#started().ref();
      this.#started().postMessage({ kind: 'probe' } satisfies ToWriter);
    });
  }

  /** Appends the append to the queue, laid out as sqlite-writer-protocol.ts says. */
  #encode(id: number, appends: readonly StreamAppend[]): void {
    const queue = this.#queue;
    queue.push(id, appends.length);
    for (const { streamName, expectedRevision, events } of appends) {
      queue.push(streamName, expectedRevision, events.length);
      for (const event of events) {
        queue.push(event.type, JSON.stringify(event.data), JSON.stringify(event.metadata));
      }
    }
  }

  /** Lets every append already made commit, then stops the thread. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#flush();
      const worker = this.#worker;
      if (worker === undefined) return;
      if (this.#failure === undefined) {
        worker.ref();
        worker.postMessage({ kind: 'close' } satisfies ToWriter);
        await this.#closed.promise;
      }
      await worker.terminate();
    })();
    return this.#closing;
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#committing && this.#closing === undefined) return; // they leave when it is reported
    this.#send();
  }

  #send(): void {
    if (this.#queue.length === 0 || this.#failure !== undefined) return;
    this.#started().postMessage({ kind: 'appends', appends: this.#queue } satisfies ToWriter);
    this.#queue = [];
    this.#committing = true;
  }

  #onMessage(message: FromWriter): void {
    if (message.kind === 'committed' || message.kind === 'failed') {
      this.#committing = false;
      this.#send(); // what waited during that commit goes into the next one
    }
    switch (message.kind) {
      case 'committed':
        this.#resolveWritten(message.written);
        for (const { id, streamName, expected, actual } of message.conflicts) {
          this.#take(id).reject(new WrongExpectedRevisionError(streamName, expected, actual));
        }
        this.#onCommit();
        return;
      case 'failed': {
        const error = this.#storeError(message.error);
        for (const id of message.ids) this.#take(id).reject(error);
        return;
      }
      case 'probed': {
        const probe = this.#probes.shift()!;
        this.#releaseIfIdle();
        if ('error' in message) probe.reject(this.#storeError(message.error));
        else if (this.#roomOf(message.roomBytes) < PROBE_MIN_ROOM_BYTES) probe.reject(this.#noRoom());
        else probe.resolve();
        return;
      }
      case 'closed':
        this.#closed.resolve();
        return;
    }
  }

  /** See sqlite-writer-protocol.ts for the layout. */
  #resolveWritten(written: BigInt64Array): void {
    for (let at = 0; at < written.length;) {
      const id = Number(written[at]);
      const position = written[at + 1]!;
      const streamCount = Number(written[at + 2]);
      const nextExpectedRevisions = Array.from(written.subarray(at + 3, at + 3 + streamCount));
      this.#take(id).resolve({ nextExpectedRevisions, position });
      at += 3 + streamCount;
    }
  }

  #take(id: number): Pending {
    const pending = this.#pending.get(id)!;
    this.#pending.delete(id);
    this.#releaseIfIdle();
    return pending;
  }

  /**
   * Nothing in flight: the thread no longer keeps the process alive, unless it is closing (close()
   * holds it until the thread has said it closed; a probe answered meanwhile would let the process
   * exit, with status 13, while close() still waits).
   */
  #releaseIfIdle(): void {
    if (this.#pending.size === 0 && this.#probes.length === 0 && this.#closing === undefined) {
      this.#worker?.unref();
    }
  }

  /** A failure of SQLite's, as the port's StoreUnavailableError when it passes (a full disk…). */
  #storeError(wire: WireError): Error {
    const error = toError(wire);
    return sqliteStoreUnavailable(error, this.#workerData.file) ?? error;
  }

  /** The bytes the file may grow by: under SQLite's page limit, and on the disk. */
  #roomOf(pageRoomBytes: number): number {
    return Math.min(pageRoomBytes, freeBytesBeside(this.#workerData.file) ?? Number.POSITIVE_INFINITY);
  }

  #noRoom(): StoreUnavailableError {
    return new StoreUnavailableError(
      'disk_full',
      `the disk holding ${path.dirname(this.#workerData.file)} is still full (under ${PROBE_MIN_ROOM_BYTES / 1024} KiB to grow the store by)`,
    );
  }

  /** The thread's end, unless the store asked for it by closing: the store is broken for this process. */
  #broken(what: string, cause?: Error): Error {
    const message = `The event store's writer thread ${what}.`;
    if (this.#closing !== undefined) return new Error(message, { cause });
    return new StoreBrokenError(message, { cause });
  }

  /** The thread failed or stopped: nothing in flight was acknowledged, and nothing more will be. */
  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    for (const probe of this.#probes.splice(0)) probe.reject(error);
    this.#queue = [];
    this.#closed.resolve();
  }
}

function toError(wire: WireError): Error {
  return Object.assign(new Error(wire.message), {
    code: wire.code,
    errcode: wire.errcode,
    errstr: wire.errstr,
  });
}
