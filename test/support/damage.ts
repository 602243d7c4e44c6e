import { openSync, closeSync, fstatSync, writeSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

/**
 * Overwrites 64 KiB in the middle of a SQLite file with a fixed pattern: the header stays valid, so
 * the file opens, but reading its events finds damaged pages ("database disk image is malformed").
 */
export function damagePages(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    const { size } = fstatSync(fd);
    writeSync(fd, Buffer.alloc(64 * 1024, 0xa5), 0, 64 * 1024, Math.floor(size / 2 / 4096) * 4096);
  } finally {
    closeSync(fd);
  }
}

/**
 * Sets one column of the event at a position to the given text, as a hand edit of the file would:
 * an event the service would never write.
 */
export function rewriteEvent(
  file: string,
  position: number,
  column: 'data' | 'metadata',
  text: string,
): void {
  const db = new DatabaseSync(file);
  try {
    db.prepare(`UPDATE events SET ${column} = ? WHERE position = ?`).run(text, position);
  } finally {
    db.close();
  }
}
