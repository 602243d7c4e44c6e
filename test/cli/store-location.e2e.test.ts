import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { runPetstore } from '../support/petstore-cli.ts';
import { startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Which store a command uses is said on stderr, and only `start` and commands that write a new
 * stream may create one: a read-only command run from the wrong directory finds nothing and says so.
 */

let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir('petstore-store-location-');
});
afterAll(() => temp.remove());

/** The default store location, `.data` in the current directory: no variable points elsewhere. */
const fromDirectory = (cwd: string, ...args: string[]) =>
  runPetstore(args, { cwd, env: { PETSTORE_DATA_DIR: '', EVENT_STORE_URL: '' } });

/** The tables a SQLite file holds, by name. */
function tablesOf(file: string): string[] {
  const db = new DatabaseSync(file);
  try {
    return db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => String(row.name));
  } finally {
    db.close();
  }
}

describe('a command run where there is no store', () => {
  it('keys list refuses, names the store it looked for, and creates nothing', async () => {
    const folder = path.join(temp.dir, 'some', 'subfolder');
    mkdirSync(folder, { recursive: true });
    const { code, stdout, stderr } = await fromDirectory(folder, 'keys', 'list');
    const store = path.join(folder, '.data', 'events.sqlite');
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toBe(
      `petstore keys list: store ${store}\npetstore keys list: there is no store at ${store}: run this where its .data directory is, or set PETSTORE_DATA_DIR\n`,
    );
    expect(existsSync(path.join(folder, '.data'))).toBe(false);
  });

  it.each([['revoke'], ['unban']])('keys %s refuses without creating a store', async (command) => {
    const folder = path.join(temp.dir, `empty-${command}`);
    mkdirSync(folder);
    expect((await fromDirectory(folder, 'keys', command, 'key_1')).code).toBe(1);
    expect(existsSync(path.join(folder, '.data'))).toBe(false);
  });

  it.each(['events', 'keys list', 'projections status'])(
    '%s refuses a 0-byte events.sqlite and leaves it empty',
    async (command) => {
      const folder = path.join(temp.dir, `zero-${command.replace(' ', '-')}`);
      mkdirSync(path.join(folder, '.data'), { recursive: true });
      const store = path.join(folder, '.data', 'events.sqlite');
      writeFileSync(store, '');
      const { code, stderr } = await fromDirectory(folder, ...command.split(' '));
      expect([code, stderr.split('\n')[1], statSync(store).size]).toEqual([
        1,
        `petstore ${command}: ${store} is an empty file, not a store: restore it from a backup, or point PETSTORE_DATA_DIR elsewhere`,
        0,
      ]);
    },
  );

  it.each([
    ['events', []],
    ['keys list', []],
    ['projections status', []],
    ['backup', ['copy.sqlite']],
    ['keys create', ['--plan', 'free']],
  ])('%s refuses a SQLite database without an events table and adds none to it', async (command, args) => {
    const folder = path.join(temp.dir, `foreign-${command.replaceAll(' ', '-')}`);
    mkdirSync(path.join(folder, '.data'), { recursive: true });
    const store = path.join(folder, '.data', 'events.sqlite');
    const other = new DatabaseSync(store);
    other.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)');
    other.close();
    const { code, stderr } = await fromDirectory(folder, ...command.split(' '), ...args);
    expect([code, stderr.split('\n')[1], tablesOf(store)]).toEqual([
      1,
      `petstore ${command}: cannot use the event store ${store}: it is a SQLite database without an events table (its tables: meta), not a store. Restore it from a backup, or point PETSTORE_DATA_DIR elsewhere.`,
      ['meta'],
    ]);
  });

  it.each([
    ['events', []],
    ['keys list', []],
    ['projections status', []],
    ['backup', ['copy.sqlite']],
  ])(
    '%s refuses a SQLite database with no tables, as a store copied without its -wal is',
    async (command, args) => {
      const folder = path.join(temp.dir, `tableless-${command.replaceAll(' ', '-')}`);
      mkdirSync(path.join(folder, '.data'), { recursive: true });
      const store = path.join(folder, '.data', 'events.sqlite');
      const empty = new DatabaseSync(store);
      empty.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x); DROP TABLE t');
      empty.close();
      const { code, stderr } = await fromDirectory(folder, ...command.split(' '), ...args);
      expect([code, stderr.split('\n')[1], tablesOf(store)]).toEqual([
        1,
        `petstore ${command}: cannot use the event store ${store}: it is a SQLite database with no tables, not a store (a copy of one taken without its -wal file?). Restore it from a backup, or point PETSTORE_DATA_DIR elsewhere.`,
        [],
      ]);
    },
  );

  it('keys create makes the store, and says where', async () => {
    const folder = path.join(temp.dir, 'new');
    mkdirSync(folder);
    const { code, stderr } = await fromDirectory(folder, 'keys', 'create', '--plan', 'free');
    expect(code).toBe(0);
    expect(stderr.split('\n')[0]).toBe(
      `petstore keys create: store ${path.join(folder, '.data', 'events.sqlite')}`,
    );
    expect(existsSync(path.join(folder, '.data', 'events.sqlite'))).toBe(true);
  });
  it('keys create with a mistake in its flags refuses before it makes a store', async () => {
    const folder = path.join(temp.dir, 'mistyped');
    mkdirSync(folder);
    const { code, stderr } = await fromDirectory(
      folder,
      'keys',
      'create',
      '--plan',
      'free',
      '--per-day',
      'lots',
    );
    expect([code, stderr.split('\n')[0]]).toEqual([
      2,
      'petstore keys create: --per-day must be a positive integer',
    ]);
    expect(existsSync(path.join(folder, '.data'))).toBe(false);
  });

  it('keys create with a key the domain refuses (an expiry in the past) refuses before it makes a store', async () => {
    const folder = path.join(temp.dir, 'refused');
    mkdirSync(folder);
    const { code, stderr } = await fromDirectory(
      folder,
      'keys',
      'create',
      '--plan',
      'free',
      '--expires-at',
      '2020-01-01T00:00:00Z',
    );
    expect([code, stderr]).toEqual([2, 'petstore keys create: The expiry must be a time in the future.\n']);
    expect(existsSync(path.join(folder, '.data'))).toBe(false);
  });
});

describe('a KurrentDB server that does not answer', () => {
  it('is one line naming its URL without the credentials, status 1', async () => {
    const port = await freePort();
    const { code, stderr } = await runPetstore(['events'], {
      env: { EVENT_STORE_URL: `kurrentdb://admin:changeit@127.0.0.1:${port}?tls=false` },
    });
    expect([code, stderr.split('\n')[1]]).toEqual([
      1,
      `petstore events: the KurrentDB server at kurrentdb://127.0.0.1:${port}?tls=false cannot be reached: check that it runs and that EVENT_STORE_URL names it`,
    ]);
  });

  it('never shows a password that holds a /, which the client takes for part of the password', async () => {
    const { code, stderr } = await runPetstore(['events'], {
      env: { EVENT_STORE_URL: 'kurrentdb://admin:change/it@127.0.0.1:1?tls=false' },
    });
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('petstore events: store kurrentdb://127.0.0.1:1?tls=false');
    expect(stderr).not.toContain('change');
  });

  it('refuses a connection string the client cannot parse as a mistake in the configuration, status 2', async () => {
    const { code, stderr } = await runPetstore(['events'], {
      env: { EVENT_STORE_URL: 'kurrentdb://admin:changeit@127.0.0.1:99999?tls=false' },
    });
    expect([code, stderr.split('\n').slice(1)]).toEqual([
      2,
      [
        'petstore events: EVENT_STORE_URL is not a connection string the KurrentDB client accepts (kurrentdb://127.0.0.1:99999?tls=false); percent-encode any of : / @ in the user name or password',
        '',
      ],
    ]);
  });

  it('refuses an option the client does not know, which it would ignore after printing the password', async () => {
    const { code, stderr } = await runPetstore(['events'], {
      env: { EVENT_STORE_URL: 'kurrentdb://admin:changeit@127.0.0.1:1?tls=false&tlsVerifyCerts=false' },
    });
    expect([code, stderr.split('\n').slice(1)]).toEqual([
      2,
      [
        'petstore events: EVENT_STORE_URL sets "tlsVerifyCerts", which the KurrentDB client does not know and would ignore; it knows userCertFile, userKeyFile, maxDiscoverAttempts, connectionName, defaultDeadline, discoveryInterval, gossipTimeout, nodePreference, tls, tlsVerifyCert, tlsCAFile, throwOnAppendFailure, keepAliveInterval, keepAliveTimeout',
        '',
      ],
    ]);
    expect(stderr).not.toContain('changeit');
  });
});

describe('an unknown key id', () => {
  it('is one line and status 1', async () => {
    const folder = path.join(temp.dir, 'with-a-key');
    mkdirSync(folder);
    await fromDirectory(folder, 'keys', 'create', '--plan', 'free');
    const { code, stderr } = await fromDirectory(folder, 'keys', 'revoke', 'key_unknown');
    expect(code).toBe(1);
    expect(stderr.split('\n').slice(1)).toEqual(['petstore keys revoke: No API key key_unknown.', '']);
  });
});

describe('petstore start flags', () => {
  it('win over the environment: --port, --host and --data-dir', async () => {
    const dataDir = path.join(temp.dir, 'from-the-flag');
    const server = await startServerProcess(
      { PORT: 'eighty', HOST: 'no-such-host.invalid', PETSTORE_DATA_DIR: '/proc/not-here' },
      { args: ['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir] },
    );
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      expect(existsSync(path.join(dataDir, 'events.sqlite'))).toBe(true);
    } finally {
      await server.kill();
    }
  });
});
