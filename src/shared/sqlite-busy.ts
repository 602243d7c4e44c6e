/**
 * Opening a SQLite file that other processes (`petstore start --workers N`) may be opening at the
 * same moment. Where waiting could deadlock, SQLite answers SQLITE_BUSY at once instead of calling
 * the busy handler: switching a new file to WAL while another connection sets it up is such a case.
 */

export const BUSY_TIMEOUT_MS = 10_000;
const SQLITE_BUSY = 5;

/**
 * Runs `statement` again, a few milliseconds apart, for as long as SQLite answers SQLITE_BUSY and
 * at most BUSY_TIMEOUT_MS. Only for opening the store: it waits synchronously, as opening does.
 */
export function retryWhileBusy(statement: () => void): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      statement();
      return;
    } catch (error) {
      const code = (error as { errcode?: unknown }).errcode;
      if (typeof code !== 'number' || (code & 0xff) !== SQLITE_BUSY || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}
