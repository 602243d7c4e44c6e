import { describe, expect, it } from 'vitest';
import { retryWhileBusy } from '../../src/shared/sqlite-busy.ts';

/** An error as node:sqlite throws it, with SQLite's result code. */
const sqliteError = (errcode: number, message: string) => Object.assign(new Error(message), { errcode });

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
