import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedDataDir } from '../../bench/seed.ts';
import { damagePages, rewriteEvent } from '../support/damage.ts';
import { PETSTORE_BIN, runPetstore } from '../support/petstore-cli.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Every failure an operator can cause when starting the server: one clear line on stderr after the
 * line naming the store, a non-zero status, no stack trace, and no process left hanging.
 */

let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir('petstore-start-failures-');
});
afterAll(() => temp.remove());

const dataDir = () => path.join(temp.dir, randomUUID());
/** The user `nobody` of Debian and most Linux systems. */
const NOBODY = { uid: 65534, gid: 65534 };
const start = (...args: string[]) => runPetstore(['start', '--port', '0', ...args], { timeoutMs: 20_000 });

/**
 * `start` on `dir` where file permissions hold: root may write any file, so as root the server runs
 * as nobody, with the directories and `writableFiles` made writable by nobody.
 */
function startAsNobodyIfRoot(dir: string, writableFiles: readonly string[] = []) {
  const root = process.getuid?.() === 0;
  if (root) {
    for (const writable of [temp.dir, dir]) chmodSync(writable, 0o777);
    for (const file of writableFiles) chmodSync(file, 0o666);
  }
  return runPetstore(['start', '--port', '0', '--data-dir', dir], {
    timeoutMs: 20_000,
    ...(root ? { user: NOBODY } : {}),
  });
}

/** A child process of `pid` (by `pgrep`, from procps), if it has one yet. */
function firstChild(pid: number): number | undefined {
  try {
    return Number(
      execFileSync('pgrep', ['-P', String(pid)])
        .toString()
        .split('\n')[0],
    );
  } catch {
    return undefined; // none yet: pgrep's status 1
  }
}

/** The lines a failed start printed: the store it named, then the reason, and nothing else. */
function failureLines(stderr: string): string[] {
  return stderr.trimEnd().split('\n');
}

describe('petstore start refuses, in one line', () => {
  let holder: Server | undefined;
  afterEach(() => holder?.close());

  it('a port in use', async () => {
    holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as { port: number };
    const dir = dataDir();
    const { code, stderr } = await start('--port', String(port), '--data-dir', dir);
    expect(code).toBe(1);
    expect(failureLines(stderr)).toEqual([
      `petstore start: store ${dir}/events.sqlite`,
      `petstore start: port ${port} on 127.0.0.1 is in use; choose another with --port or PORT`,
    ]);
  });

  it('a port in use with --workers 2: one line for both workers, and no worker said to stop uncleanly', async () => {
    holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as { port: number };
    const dir = dataDir();
    const { code, stdout, stderr } = await runPetstore(
      ['start', '--port', String(port), '--workers', '2', '--data-dir', dir],
      { env: { LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, timeoutMs: 20_000 },
    );
    expect(code).toBe(1);
    expect(failureLines(stderr)).toEqual([
      `petstore start: store ${dir}/events.sqlite`,
      `petstore start: port ${port} on 127.0.0.1 is in use; choose another with --port or PORT`,
    ]);
    const errors = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 50);
    expect(errors).toEqual([]);
  });

  it('a worker killed before it listened, which could say nothing: the primary says so', async () => {
    const dir = dataDir();
    const child = spawn(
      process.execPath,
      [PETSTORE_BIN, 'start', '--port', '0', '--workers', '2', '--data-dir', dir],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = once(child, 'close');
    let worker: number | undefined;
    while (worker === undefined) worker = firstChild(child.pid!);
    process.kill(worker, 'SIGKILL');
    const [code] = (await closed) as [number | null];
    expect(code).toBe(1);
    expect(failureLines(stderr)).toEqual([
      `petstore start: store ${dir}/events.sqlite`,
      expect.stringMatching(/^petstore start: worker [01] exited before it listened \(signal SIGKILL\)$/),
    ]);
  });

  it('a metrics port in use, naming METRICS_PORT', async () => {
    holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as { port: number };
    const { code, stderr } = await runPetstore(['start', '--port', '0', '--data-dir', dataDir()], {
      env: { METRICS_PORT: String(port) },
      timeoutMs: 20_000,
    });
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      `petstore start: port ${port} on 127.0.0.1 is in use; choose another with METRICS_PORT`,
    );
  });

  it('a host that is not an address of this machine', async () => {
    const { code, stderr } = await start('--host', '192.0.2.1', '--data-dir', dataDir());
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      'petstore start: cannot listen on 192.0.2.1: it is not an address of this machine',
    );
  });

  it('a host name that does not resolve', async () => {
    const { code, stderr } = await start('--host', 'no-such-host.invalid', '--data-dir', dataDir());
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      'petstore start: cannot listen on no-such-host.invalid: no such host (--host or HOST)',
    );
  });

  it('a metrics host name that does not resolve, naming METRICS_HOST', async () => {
    const { code, stderr } = await runPetstore(['start', '--port', '0', '--data-dir', dataDir()], {
      env: { METRICS_PORT: '0', METRICS_HOST: 'no-such-host.invalid' },
      timeoutMs: 20_000,
    });
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      'petstore start: cannot listen on no-such-host.invalid: no such host (METRICS_HOST)',
    );
  });

  it('a data directory under /proc, at once rather than looping forever', async () => {
    const { code, stderr } = await runPetstore(['start', '--data-dir', '/proc/petstore-data'], {
      timeoutMs: 5_000,
    });
    expect(code).toBe(1);
    expect(failureLines(stderr)).toEqual([
      'petstore start: store /proc/petstore-data/events.sqlite',
      'petstore start: cannot use /proc/petstore-data as the data directory: the file system does not allow a directory there',
    ]);
  });

  it('a data directory whose path runs through a file', async () => {
    const file = path.join(temp.dir, `${randomUUID()}.txt`);
    writeFileSync(file, 'not a directory');
    const { code, stderr } = await start('--data-dir', path.join(file, 'data'));
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      `petstore start: cannot use ${file}/data as the data directory: a part of the path is a file, not a directory`,
    );
  });

  it('a store file that is not a database', async () => {
    const dir = dataDir();
    await seedDataDir(dir, 1);
    writeFileSync(path.join(dir, 'events.sqlite'), Buffer.alloc(8192, 7));
    const { code, stderr } = await start('--data-dir', dir);
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      `petstore start: cannot use the event store ${dir}/events.sqlite: it is not a SQLite database (SQLite: file is not a database). Restore it from a backup, or point PETSTORE_DATA_DIR elsewhere.`,
    );
  });

  it('a SQLite database of another kind in the store’s place, instead of serving it as an empty store', async () => {
    const dir = dataDir();
    mkdirSync(dir);
    const other = new DatabaseSync(path.join(dir, 'events.sqlite'));
    other.exec('CREATE TABLE pet_versions (id INTEGER, version INTEGER)');
    other.close();
    const { code, stderr } = await start('--data-dir', dir);
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      `petstore start: cannot use the event store ${dir}/events.sqlite: it is a SQLite database without an events table (its tables: pet_versions), not a store. Restore it from a backup, or point PETSTORE_DATA_DIR elsewhere.`,
    );
  });

  it('a store it cannot open, with advice that is not to restore a backup (which would lose events)', async () => {
    const dir = dataDir();
    mkdirSync(path.join(dir, 'events.sqlite'), { recursive: true });
    const { code, stderr } = await start('--data-dir', dir);
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      `petstore start: cannot use the event store ${dir}/events.sqlite: it cannot be opened (SQLite: unable to open database file). Check that it is a file this user may read and write, in a directory it may write (SQLite keeps its -wal and -shm files beside it), on a file system not mounted read-only.`,
    );
  });

  it('a store whose pages are damaged, instead of retrying every second without listening', async () => {
    const dir = dataDir();
    await seedDataDir(dir, 20_000);
    damagePages(path.join(dir, 'events.sqlite'));
    const { code, stderr } = await start('--data-dir', dir);
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      `petstore start: cannot use the event store ${dir}/events.sqlite: it is damaged (SQLite: database disk image is malformed). Restore it from a backup, or point PETSTORE_DATA_DIR elsewhere.`,
    );
  });

  it('a store file this user may not write, instead of listening and failing every write with a 500', async () => {
    const dir = dataDir();
    await seedDataDir(dir, 1);
    chmodSync(path.join(dir, 'events.sqlite'), 0o444);
    const { code, stderr } = await startAsNobodyIfRoot(dir);
    expect(code).toBe(1);
    expect(failureLines(stderr)).toEqual([
      `petstore start: store ${dir}/events.sqlite`,
      `petstore start: cannot use the event store ${dir}/events.sqlite: it is read-only for this user. Check that it is a file this user may read and write, in a directory it may write (SQLite keeps its -wal and -shm files beside it), on a file system not mounted read-only.`,
    ]);
  });

  it('a store whose -wal file, left by another user, this user may not write, instead of failing every write with a 500', async () => {
    const dir = dataDir();
    await seedDataDir(dir, 1);
    writeFileSync(path.join(dir, 'events.sqlite-wal'), '');
    chmodSync(path.join(dir, 'events.sqlite-wal'), 0o444);
    const { code, stderr } = await startAsNobodyIfRoot(dir, [path.join(dir, 'events.sqlite')]);
    expect(code).toBe(1);
    expect(failureLines(stderr)).toEqual([
      `petstore start: store ${dir}/events.sqlite`,
      `petstore start: cannot use the event store ${dir}/events.sqlite: its -wal file is read-only for this user. Check that it is a file this user may read and write, in a directory it may write (SQLite keeps its -wal and -shm files beside it), on a file system not mounted read-only.`,
    ]);
  });

  it('a file descriptor limit too low to start under, naming the limit rather than the file it failed to open', async () => {
    const dir = dataDir();
    const { code, stderr } = await runPetstore(['start', '--port', '0', '--data-dir', dir], {
      timeoutMs: 20_000,
      through: ['prlimit', '--nofile=30:30'],
    });
    expect(code).toBe(1);
    expect(failureLines(stderr)).toEqual([
      `petstore start: store ${dir}/events.sqlite`,
      expect.stringMatching(
        /^petstore start: this process ran out of file descriptors( \(\d+ open, limit 30\))?: raise its limit \(ulimit -n, or the container's nofile\) to 1024 or more; the pet store holds about 40 at rest, and one more per connection$/,
      ),
    ]);
  });

  it('under a low file descriptor limit it can run under, a store of another kind named as such, not as descriptors', async () => {
    const dir = dataDir();
    mkdirSync(dir);
    const other = new DatabaseSync(path.join(dir, 'events.sqlite'));
    other.exec('CREATE TABLE pet_versions (id INTEGER, version INTEGER)');
    other.close();
    const { code, stderr } = await runPetstore(['start', '--port', '0', '--data-dir', dir], {
      timeoutMs: 20_000,
      through: ['prlimit', '--nofile=50:50'],
    });
    expect([code, failureLines(stderr)[1]]).toEqual([
      1,
      `petstore start: cannot use the event store ${dir}/events.sqlite: it is a SQLite database without an events table (its tables: pet_versions), not a store. Restore it from a backup, or point PETSTORE_DATA_DIR elsewhere.`,
    ]);
  });

  it('a temporal index it cannot open, naming that file and not the event store', async () => {
    const dir = dataDir();
    await seedDataDir(dir, 1);
    mkdirSync(path.join(dir, 'temporal-index.sqlite'));
    const { code, stderr } = await start('--data-dir', dir);
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      `petstore start: cannot use the temporal index ${dir}/temporal-index.sqlite: it cannot be opened (SQLite: unable to open database file). It is derived from the events: delete it to rebuild it.`,
    );
  });

  it('a store holding an event the service cannot have written, naming the event', async () => {
    const dir = dataDir();
    await seedDataDir(dir, 10);
    rewriteEvent(path.join(dir, 'events.sqlite'), 5, 'data', '"a string"');
    const { code, stderr } = await start('--data-dir', dir);
    expect(code).toBe(1);
    expect(failureLines(stderr)[1]).toBe(
      'petstore start: The event at position 5 (stream pet-4, revision 0, PetCreated) cannot be read: its data is a string, not a JSON object. ' +
        'The service writes no such event: the store was changed outside it. Restore the store from a backup.',
    );
  });

  it('a bad --port value, naming the flag', async () => {
    const { code, stderr } = await runPetstore(['start', '--port', 'eighty']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'petstore start: Invalid configuration:\n  --port="eighty": must be a whole number, in decimal digits\n',
    );
  });

  it.each([
    ['--port', 'PORT'],
    ['--data-dir', 'PETSTORE_DATA_DIR'],
  ])('an empty %s, as a usage mistake, rather than falling back to %s', async (flag, variable) => {
    // Were the flag ignored, the server would start on a free port and a store of its own.
    const { code, stderr } = await runPetstore(['start', flag, ''], {
      cwd: temp.dir,
      env: { PORT: '0', PETSTORE_DATA_DIR: dataDir() },
      timeoutMs: 10_000,
    });
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(
      `petstore start: ${flag} is empty: give it a value, or leave it out to use ${variable}`,
    );
  });
});
