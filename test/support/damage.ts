import { openSync, closeSync, fstatSync, writeSync } from 'node:fs';

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
