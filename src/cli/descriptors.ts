import { readdirSync, readFileSync } from 'node:fs';

/** Descriptors this close to the limit count as used up: what failed may have freed its own since. */
const MARGIN = 4;
/**
 * Under this limit the service cannot run at all (it holds about 40 at rest): a start that failed
 * under it ran short, even if what failed gave its descriptors back before it was asked.
 */
const UNWORKABLE_LIMIT = 64;

/**
 * Open descriptors and the soft limit (`ulimit -n`), from Linux's /proc; `used up` when even /proc
 * cannot be read for want of one; undefined where it does not say.
 */
function descriptors(): { open: number; limit: number } | 'used up' | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'));
    const limit = Number(line?.slice('Max open files'.length).trim().split(/\s+/)[0]);
    if (!Number.isSafeInteger(limit)) return undefined; // "unlimited"
    return { open: readdirSync('/proc/self/fd').length - 1, limit }; // less the directory read
  } catch (error) {
    return saysEmfile(error) ? 'used up' : undefined;
  }
}

/** Whether `error`, or an error it was caused by, is EMFILE (a thread's start says so only in words). */
function saysEmfile(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  if ((error as NodeJS.ErrnoException).code === 'EMFILE' || /\bEMFILE\b/.test(error.message)) return true;
  return saysEmfile(error.cause, depth + 1);
}

/**
 * The one line for a start that ran out of file descriptors, or undefined when it did not. Such a
 * start fails wherever it opened its next file (the temporal index, the store's writer thread, the
 * listening socket), each in words of its own that do not name the cause, and some mislead (the
 * temporal index "cannot be opened … delete it to rebuild it").
 */
export function descriptorsFailure(error: unknown): string | undefined {
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENFILE')
    return 'the machine has run out of file descriptors (ENFILE): stop other processes, or raise fs.file-max';
  const now = descriptors();
  const counted = typeof now === 'object' ? now : undefined;
  const short =
    now === 'used up' ||
    saysEmfile(error) ||
    (counted !== undefined && (counted.open + MARGIN >= counted.limit || counted.limit < UNWORKABLE_LIMIT));
  if (!short) return undefined;
  const held = counted === undefined ? '' : ` (${counted.open} open, limit ${counted.limit})`;
  return `this process ran out of file descriptors${held}: raise its limit (ulimit -n, or the container's nofile) to 1024 or more; the pet store holds about 40 at rest, and one more per connection`;
}
