import { closeSync, fsyncSync, openSync } from 'node:fs';

/** Flushes a file, or a directory's entries (a new name in it), to the disk. */
export function syncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
