import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';

/** Calls `onChange` when the WAL file changes: every commit, this process's or another's, writes it. */
export function watchWal(file: string, onChange: () => void): FSWatcher | undefined {
  const wal = `${path.basename(file)}-wal`;
  try {
    const watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (name === wal) onChange();
    });
    watcher.on('error', () => watcher.close()); // the poll still finds new events
    return watcher;
  } catch {
    return undefined; // no watching on this file system: the poll finds new events
  }
}
