import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWalDatabase, retryWhileBusy } from '../../src/shared/sqlite-file.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** An error as node:sqlite throws it, with SQLite's result code. */
// As node:sqlite throws them: code ERR_SQLITE_ERROR, SQLite's result code in errcode.
const sqliteError = (errcode: number, message: string) =>
  Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR', errcode });

describe('retryWhileBusy', () => {
  it('runs the statement again while SQLite answers SQLITE_BUSY, until it succeeds', () => {
    let calls = 0;
    retryWhileBusy(() => {
      calls += 1;
      if (calls < 3) throw sqliteError(5, 'database is locked');
    });
    expect(calls).toBe(3);
  });

  it('counts an extended SQLITE_BUSY code as busy', () => {
    let calls = 0;
    retryWhileBusy(() => {
      calls += 1;
      if (calls === 1) throw sqliteError(5 | (2 << 8), 'database is locked'); // SQLITE_BUSY_SNAPSHOT
    });
    expect(calls).toBe(2);
  });

  it('throws any other error at once', () => {
    let calls = 0;
    expect(() =>
      retryWhileBusy(() => {
        calls += 1;
        throw sqliteError(11, 'database disk image is malformed');
      }),
    ).toThrow('database disk image is malformed');
    expect(calls).toBe(1);
  });
});

describe('openWalDatabase', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(() => temp?.remove());

  it('creates the file and its folder, in WAL mode, at the synchronous level asked, with the schema', () => {
    temp = makeTempDir();
    const db = openWalDatabase(path.join(temp.dir, 'new', 'index.sqlite'), {
      synchronous: 'NORMAL',
      schema: 'CREATE TABLE IF NOT EXISTS t (x INTEGER)',
    });
    const pragma = (name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get()!)[0];
    expect([pragma('journal_mode'), pragma('synchronous'), pragma('busy_timeout')]).toEqual([
      'wal',
      1,
      10_000,
    ]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 't' }]);
    db.close();
  });
});
