import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petstore } from '../support/cli.ts';
import { damagePages } from '../support/damage.ts';
import { openDataDirStore, seedDataDir, seedPets } from '../support/seed-store.ts';
import { startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * `petstore restore <backup>`: a backup put in the embedded store's place, as an operator restores
 * one after a loss, without the pitfalls of doing it by hand (a -wal of the old store applied to the
 * backup, positions given twice, a server still running on the store).
 */

let temp: ReturnType<typeof makeTempDir>;
let dataDir: string;
let backup: string;
let store: string;
beforeEach(async () => {
  temp = makeTempDir();
  dataDir = path.join(temp.dir, 'data');
  store = path.join(dataDir, 'events.sqlite');
  backup = path.join(temp.dir, 'backup.sqlite');
  await seedDataDir(dataDir, 3); // positions 1 (the id block) to 4
  expect((await petstore(dataDir, ['backup', backup])).code).toBe(0);
  const later = openDataDirStore(dataDir);
  await seedPets(later, 2, 4); // positions 5 to 7: lost by the restore
  await later.close();
});
afterEach(() => temp.remove());

/** Position and stream of every event of a store file. */
function eventsOf(file: string): [number, string][] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare('SELECT position, stream FROM events ORDER BY position').all();
    return rows.map((row) => [row.position as number, row.stream as string]);
  } finally {
    db.close();
  }
}

const storeFiles = () => readdirSync(dataDir).filter((name) => name.startsWith('events.sqlite'));

describe('petstore restore', () => {
  it('puts the backup in the store’s place and keeps the store it replaced, whole, beside it', async () => {
    const { code, stdout } = await petstore(dataDir, ['restore', backup]);
    const kept = storeFiles().find((name) => name.startsWith('events.sqlite.replaced-'))!;
    expect([code, stdout]).toEqual([
      0,
      `${store}: restored from ${backup}: 4 events, up to position 4; new events take positions after 7\n` +
        "PetIdBlockReserved 4-5 appended: the ids the replaced store had reserved past the backup's are not handed out again\n" +
        `the store it replaced is kept as ${path.join(dataDir, kept)}\n`,
    ]);
    expect(eventsOf(store).slice(0, 4)).toEqual([
      [1, 'pet-ids'],
      [2, 'pet-1'],
      [3, 'pet-2'],
      [4, 'pet-3'],
    ]);
    expect(eventsOf(path.join(dataDir, kept)).map(([position]) => position)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('gives new events positions after the replaced store’s last, never one a client may have learnt', async () => {
    await petstore(dataDir, ['restore', backup]);
    const restored = openDataDirStore(dataDir);
    await seedPets(restored, 1, 6);
    await restored.close();
    expect(eventsOf(store).slice(4)).toEqual([
      [8, 'pet-ids'], // the reservation of the ids handed out after the backup, below
      [9, 'pet-ids'],
      [10, 'pet-6'],
    ]);
  });

  it('reserves again the pet ids the replaced store had reserved after the backup, so that none is handed out twice', async () => {
    await petstore(dataDir, ['restore', backup]);
    const server = await startServerProcess({ PETSTORE_DATA_DIR: dataDir });
    try {
      const key = (await petstore(dataDir, ['keys', 'create', '--plan', 'free'])).stdout.trim();
      const created = await fetch(`${server.url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'After the restore', categoryId: 1 }),
      });
      // Pets 4 and 5 were created after the backup; the restored store's next block starts past them.
      expect([created.status, ((await created.json()) as { id: number }).id]).toEqual([201, 6]);
    } finally {
      await server.kill();
    }
  });

  it('restored again before any new event, still gives new events positions after those the first restore skipped', async () => {
    const whole = path.join(temp.dir, 'whole.sqlite'); // every event, every id: nothing to reserve again
    expect((await petstore(dataDir, ['backup', whole])).code).toBe(0);
    await petstore(dataDir, ['restore', whole, '--after-position', '1000']);
    const { stdout } = await petstore(dataDir, ['restore', whole]);
    expect(stdout.split('\n')[0]).toBe(
      `${store}: restored from ${whole}: 7 events, up to position 7; new events take positions after 1000`,
    );
  });

  it('with --after-position, gives new events positions after that one', async () => {
    const { stdout } = await petstore(dataDir, ['restore', backup, '--after-position', '1000']);
    expect(stdout.split('\n')[0]).toBe(
      `${store}: restored from ${backup}: 4 events, up to position 4; new events take positions after 1000`,
    );
    // The reservation of the ids handed out after the backup is the first of them.
    expect(eventsOf(store).slice(4)).toEqual([[1001, 'pet-ids']]);
  });

  it('with --after-position below the replaced store’s last, gives new events positions after the replaced store’s', async () => {
    const { stdout } = await petstore(dataDir, ['restore', backup, '--after-position', '5']);
    expect(stdout.split('\n')[0]).toBe(
      `${store}: restored from ${backup}: 4 events, up to position 4; new events take positions after 7`,
    );
  });

  it('refuses an --after-position that would leave no room for new events, as a mistake in the command line', async () => {
    const { code, stderr } = await petstore(dataDir, [
      'restore',
      backup,
      '--after-position',
      '9007199254740991',
    ]);
    expect([code, stderr.split('\n')[0], storeFiles()]).toEqual([
      2,
      'petstore restore: --after-position must be a position: a whole number from 0 to 9007198254740991 (room for a billion events past it)',
      ['events.sqlite'],
    ]);
  });

  it('refuses --after-position below the backup’s last event, replacing nothing', async () => {
    const before = readFileSync(store);
    const { code, stderr } = await petstore(dataDir, ['restore', backup, '--after-position', '3']);
    expect([code, stderr.trimEnd().split('\n').at(-1), storeFiles()]).toEqual([
      1,
      `petstore restore: cannot restore ${backup}: it holds events up to position 4: new events cannot start after 3, which is below it`,
      ['events.sqlite'],
    ]);
    expect(readFileSync(store).equals(before)).toBe(true);
  });

  it('refuses while a server has the store open, replacing nothing', async () => {
    const server = await startServerProcess({ PETSTORE_DATA_DIR: dataDir });
    try {
      const { code, stderr } = await petstore(dataDir, ['restore', backup]);
      expect([code, stderr.trimEnd().split('\n').at(-1)]).toEqual([
        1,
        `petstore restore: a process has the store ${store} open (a server, a forwarder, a command): stop every process that uses it, then restore`,
      ]);
      expect(eventsOf(store)).toHaveLength(7);
    } finally {
      await server.kill();
    }
  });

  it('refuses a damaged backup, replacing nothing and leaving no copy behind', async () => {
    const damaged = path.join(temp.dir, 'damaged.sqlite');
    const big = makeTempDir();
    try {
      await seedDataDir(big.dir, 2_000); // enough pages to damage one past the header
      copyFileSync(path.join(big.dir, 'events.sqlite'), damaged);
    } finally {
      big.remove();
    }
    damagePages(damaged);
    const { code, stderr } = await petstore(dataDir, ['restore', damaged]);
    expect([code, stderr.trimEnd().split('\n').at(-1), storeFiles()]).toEqual([
      1,
      expect.stringMatching(
        new RegExp(
          `^petstore restore: cannot restore ${damaged}: it is damaged \\(SQLite's quick_check: .+\\)$`,
        ),
      ),
      ['events.sqlite'],
    ]);
    expect(eventsOf(store)).toHaveLength(7);
  });

  it('refuses a SQLite file of another kind, naming the backup, not the copy it checked', async () => {
    const other = path.join(temp.dir, 'other.sqlite');
    const db = new DatabaseSync(other);
    db.exec('CREATE TABLE t (x INTEGER)');
    db.close();
    const { code, stderr } = await petstore(dataDir, ['restore', other]);
    expect([code, stderr.trimEnd().split('\n').at(-1)]).toEqual([
      1,
      `petstore restore: cannot restore ${other}: it is not a store: a SQLite database without an events table`,
    ]);
  });

  it('refuses a backup with a -wal beside it (a copy of a live store, not a backup)', async () => {
    writeFileSync(`${backup}-wal`, '');
    const { code, stderr } = await petstore(dataDir, ['restore', backup]);
    expect([code, stderr.trimEnd().split('\n').at(-1)]).toEqual([
      1,
      `petstore restore: cannot restore ${backup}: ${backup}-wal lies beside it, which may hold commits the file lacks (a copy of a live store, not a backup): use a backup made by petstore backup`,
    ]);
  });

  it('restores into a data directory that was lost, positions then following the backup’s', async () => {
    rmSync(dataDir, { recursive: true });
    const { code, stdout } = await petstore(dataDir, ['restore', backup]);
    expect([code, stdout, eventsOf(store)]).toEqual([
      0,
      `${store}: restored from ${backup}: 4 events, up to position 4; new events take positions after 4\n` +
        'there was no store to replace\n',
      [
        [1, 'pet-ids'],
        [2, 'pet-1'],
        [3, 'pet-2'],
        [4, 'pet-3'],
      ],
    ]);
  });
});
