import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import {
  encodeHeader,
  HEADER_BYTES,
  headerOf,
  readSnapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_FORMAT_VERSION,
  type SnapshotHeader,
  type SnapshotMeta,
  type SnapshotRead,
} from './snapshot-format.ts';

export type { Snapshot, SnapshotHeader, SnapshotMeta, SnapshotRead } from './snapshot-format.ts';

/** Absent, refused with a reason, or proven (see snapshot-format.ts). */
export type SnapshotLoad =
  SnapshotRead | { readonly ok: false; readonly missing: true; readonly reason: string };

/** A file's header, or why it has none this code reads (the reason a start would refuse the file for). */
export type SnapshotHeaderRead =
  { readonly ok: true; readonly header: SnapshotHeader } | { readonly ok: false; readonly reason: string };

export type SnapshotStore = {
  load(projection: string): Promise<SnapshotLoad>;
  /**
   * The header alone, unchecked beyond its own shape: for status reports, never for loading.
   * Undefined when there is no file.
   */
  header(projection: string): Promise<SnapshotHeaderRead | undefined>;
  /**
   * Writes the parts as the snapshot's body, a chunk at a time (the event loop is free between
   * chunks), then the header, then replaces the file atomically. Iterating `parts` may happen
   * over many turns of the event loop: see `Projection.toSnapshot`.
   */
  save(meta: SnapshotMeta, parts: Iterable<unknown>): Promise<void>;
  /** Removes what interrupted writes left (temporary files of processes no longer running). */
  removeLeftovers(): Promise<string[]>;
};

/** About 64 KiB of JSON per write: a millisecond or two of work between turns of the event loop. */
const CHUNK_CHARS = 64 * 1024;
const TEMPORARY = /\.(\d+)(?:\.[0-9a-f]+)?\.tmp$/;
/** No snapshot write takes this long: an older temporary file is a leftover whoever wrote it. */
const STALE_TEMPORARY_MS = 3600_000;
/** Files of the first format (plain JSON, no checksum), replaced by this one. */
const LEGACY = /\.snapshot\.json$/;

/** Whether a file `removeLeftovers` removed was a snapshot of the first format, not a temporary file. */
export const isFirstFormatSnapshot = (name: string): boolean => LEGACY.test(name);

const unreadableFile = (error: unknown) => `the file cannot be read (${(error as Error).message})`;

/** Snapshots as files in a directory, one per projection, replaced atomically (write, then rename). */
export function snapshotDirectory(dir: string): SnapshotStore {
  const fileOf = (projection: string) => path.join(dir, `${projection}.snapshot`);
  return {
    async load(projection) {
      let file: Buffer;
      try {
        file = await readFile(fileOf(projection));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          return { ok: false, missing: true, reason: 'no snapshot' };
        // A file that cannot be read (permissions, a directory in its way, the disk) is not proven
        // either: refused like a damaged one, so that the read model is rebuilt from the events
        // rather than the start failing for want of a file derived from them.
        return { ok: false, reason: unreadableFile(error) };
      }
      try {
        return readSnapshot(file, projection);
      } catch (error) {
        return { ok: false, reason: `unreadable: ${String(error)}` };
      }
    },
    async header(projection) {
      let handle;
      try {
        handle = await open(fileOf(projection), 'r');
        const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0);
        const header = headerOf(buffer.subarray(0, bytesRead));
        return typeof header === 'string' ? { ok: false, reason: header } : { ok: true, header };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        return { ok: false, reason: unreadableFile(error) };
      } finally {
        await handle?.close();
      }
    },
    async save(meta, parts) {
      await mkdir(dir, { recursive: true });
      const file = fileOf(meta.projection);
      const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await writeSnapshot(temporary, meta, parts);
        await rename(temporary, file);
      } catch (error) {
        await unlink(temporary).catch(() => {});
        throw error;
      }
    },
    async removeLeftovers() {
      const names = await readdir(dir).catch(() => [] as string[]);
      const leftovers: string[] = [];
      for (const name of names) {
        const temporary = TEMPORARY.exec(name);
        if (temporary === null ? !LEGACY.test(name) : await mayBeWritten(path.join(dir, name), temporary))
          continue;
        await unlink(path.join(dir, name)).catch(() => {});
        leftovers.push(name);
      }
      return leftovers;
    },
  };
}

/**
 * Whether another process may still be writing this temporary file: one of that id runs (processes
 * sharing the data directory), and the file is recent (a process of another host or container
 * with the same id cannot keep a crashed write's file forever). This process writes none before
 * it removes leftovers, so a file with its own id is one a previous process of that id left.
 */
async function mayBeWritten(file: string, match: RegExpExecArray): Promise<boolean> {
  const pid = Number(match[1]);
  if (pid === process.pid || !isRunning(pid)) return false;
  const modified = await stat(file).then(
    (stats) => stats.mtimeMs,
    () => 0,
  );
  return Date.now() - modified < STALE_TEMPORARY_MS;
}

async function writeSnapshot(file: string, meta: SnapshotMeta, parts: Iterable<unknown>): Promise<void> {
  const handle = await open(file, 'w');
  try {
    await handle.write(Buffer.alloc(HEADER_BYTES, ' '));
    const hash = createHash('sha256');
    let bodyBytes = 0;
    for (const chunk of jsonArrayChunks(parts)) {
      const bytes = Buffer.from(chunk);
      hash.update(bytes);
      bodyBytes += bytes.length;
      await handle.write(bytes);
    }
    const header: SnapshotHeader = {
      format: SNAPSHOT_FORMAT,
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      ...meta,
      savedAt: new Date().toISOString(),
      bodyBytes,
      sha256: hash.digest('hex'),
    };
    await handle.write(encodeHeader(header), 0, HEADER_BYTES, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * `[part,\npart,…]` as JSON, a part per line (see snapshot-format.ts), in chunks of about
 * CHUNK_CHARS: each part is made only when its chunk is.
 */
function* jsonArrayChunks(parts: Iterable<unknown>): Generator<string> {
  let chunk = '[';
  let first = true;
  for (const part of parts) {
    chunk += (first ? '' : ',\n') + JSON.stringify(part);
    first = false;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}]`;
}

/** Whether a process of this id runs (or exists under another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The same snapshots, for a tool that must leave them as they are (the CLI beside a running server). */
export function readOnly(snapshots: SnapshotStore): SnapshotStore {
  return { ...snapshots, save: async () => {}, removeLeftovers: async () => [] };
}

/** Where a service keeps its read-model snapshots: `snapshots/` in its data directory. */
export function dataDirSnapshots(dataDir: string): SnapshotStore {
  return snapshotDirectory(path.join(dataDir, 'snapshots'));
}
