import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A read model's image on disk: which projection and version made it, and up to which position. */
export type Snapshot = {
  readonly projection: string;
  readonly version: number;
  /** Decimal string: positions are bigint. */
  readonly checkpoint: string;
  /**
   * Id of the event at `checkpoint`: a snapshot is only valid for the store that holds that very
   * event there (not for a store replaced under it, or another store at the same path).
   */
  readonly checkpointEventId: string;
  readonly state: unknown;
};

/** Whether a parsed file has a snapshot's shape (a damaged or foreign file means a rebuild). */
export function isSnapshot(value: unknown): value is Snapshot {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.projection === 'string' &&
    typeof v.version === 'number' &&
    typeof v.checkpoint === 'string' &&
    /^\d+$/.test(v.checkpoint) &&
    typeof v.checkpointEventId === 'string' &&
    'state' in v
  );
}

export type SnapshotStore = {
  load(projection: string): Promise<Snapshot | undefined>;
  save(snapshot: Snapshot): Promise<void>;
};

/** Snapshots as JSON files in a directory, replaced atomically (write, then rename). */
export function snapshotDirectory(dir: string): SnapshotStore {
  const fileOf = (projection: string) => path.join(dir, `${projection}.snapshot.json`);
  return {
    async load(projection) {
      try {
        return JSON.parse(await readFile(fileOf(projection), 'utf8')) as Snapshot;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        if (error instanceof SyntaxError) return undefined;
        throw error;
      }
    },
    async save(snapshot) {
      await mkdir(dir, { recursive: true });
      const file = fileOf(snapshot.projection);
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(snapshot));
      await rename(temporary, file);
    },
  };
}

/** Where a service keeps its read-model snapshots: `snapshots/` in its data directory. */
export function dataDirSnapshots(dataDir: string): SnapshotStore {
  return snapshotDirectory(path.join(dataDir, 'snapshots'));
}
