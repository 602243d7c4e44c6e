import type { FSWatcher } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { watchWal } from './wal-watch.ts';

/**
 * Tells this process's readers about commits they did not see coming: those of other processes
 * sharing the file. Every commit writes the WAL file, and `PRAGMA data_version` on the reading
 * connection changes when any other connection has committed since it last looked (the writer
 * thread's connection included: `ownCommit()` takes those into account, so that only others'
 * commits wake readers from here). The poll interval of subscriptions covers file systems that
 * cannot be watched.
 */
export class CommitWatch {
  readonly #dataVersion: StatementSync;
  readonly #onOthersCommit: () => void;
  readonly #watcher: FSWatcher | undefined;
  #lastDataVersion: number;
  #checking = false;
  #closed = false;

  constructor(db: DatabaseSync, file: string, onOthersCommit: () => void) {
    this.#dataVersion = db.prepare('PRAGMA data_version');
    this.#dataVersion.setReturnArrays(true);
    this.#lastDataVersion = this.#version();
    this.#onOthersCommit = onOthersCommit;
    this.#watcher = watchWal(file, () => this.#onWalChange());
  }

  /**
   * This process's writer committed and its readers are being woken: whatever is committed by now,
   * theirs or another process's, they will read.
   */
  ownCommit(): void {
    if (!this.#closed) this.#lastDataVersion = this.#version();
  }

  close(): void {
    this.#closed = true;
    this.#watcher?.close();
  }

  #version(): number {
    return (this.#dataVersion.get() as unknown as [number])[0];
  }

  /**
   * The WAL file changed. The file event can come before the commit that wrote it is visible, so
   * look a few times over the next ~250 ms (a slow fsync delays it); past that, the poll interval
   * takes over.
   */
  #onWalChange(): void {
    if (this.#checking || this.#closed) return;
    this.#checking = true;
    setImmediate(() => this.#check(0));
  }

  #check(attempt: number): void {
    if (this.#closed) return;
    const version = this.#version();
    if (version !== this.#lastDataVersion) {
      this.#lastDataVersion = version;
      this.#checking = false;
      this.#onOthersCommit();
      return;
    }
    if (attempt === 8) {
      this.#checking = false;
      return;
    }
    setTimeout(() => this.#check(attempt + 1), 2 ** attempt).unref();
  }
}
