import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A read model's image on disk: which projection and version made it, and up to which position. */
export type Snapshot = {
  readonly projection: string;
  readonly version: number;
  /** Decimal string: positions are bigint. */
  readonly checkpoint: string;
  readonly state: unknown;
};

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
