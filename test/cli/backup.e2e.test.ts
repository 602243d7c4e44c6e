import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petstore } from '../support/cli.ts';
import { damagePages } from '../support/damage.ts';
import { PETSTORE_BIN } from '../support/petstore-cli.ts';
import { seedDataDir } from '../support/seed-store.ts';
import { createApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * `petstore backup` as an operator runs it: on a store that a server keeps writing to, then
 * restored in its place as the README says.
 */

const WRITERS = 4;
/** Small blocks of pet ids, so that writes after the backup reserve some. */
const ENV = { PET_ID_BLOCK_SIZE: '50' };

let temp: ReturnType<typeof makeTempDir>;
let dataDir: string;
let server: ServerProcess | undefined;
let headers: Record<string, string>;

beforeAll(async () => {
  temp = makeTempDir();
  dataDir = path.join(temp.dir, 'data');
  const env = { ...ENV, PETSTORE_DATA_DIR: dataDir };
  headers = { authorization: `Bearer ${createApiKey(env)}`, 'content-type': 'application/json' };
  server = await startServerProcess(env);
});
afterAll(async () => {
  await server?.kill();
  temp.remove();
});

type Row = {
  position: number;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
};

/** Every event of a store file, in position order. */
function eventsOf(file: string): Row[] {
  const db = new DatabaseSync(file);
  try {
    return db.prepare('SELECT * FROM events ORDER BY position').all() as unknown as Row[];
  } finally {
    db.close();
  }
}

/** Creates pets through the server, WRITERS at a time, until `stop` is called; resolves their ids. */
function keepWriting(url: string) {
  let stopped = false;
  let created = 0;
  const writer = async (n: number) => {
    const ids: number[] = [];
    for (let i = 0; !stopped; i++) {
      const response = await fetch(`${url}/v1/pets`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Writer ${n} pet ${i}`, categoryId: 1, status: 'available' }),
      });
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: number }).id);
      created++;
    }
    return ids;
  };
  const writers = Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n)));
  return {
    created: () => created,
    async stop() {
      stopped = true;
      return (await writers).flat();
    },
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a backup taken while a server takes a steady stream of writes', () => {
  let backupFile: string;
  let run: Awaited<ReturnType<typeof petstore>>;
  let createdDuringBackup: number;
  let petIds: number[];
  /** The backup's events, read before it is restored. */
  let copied: Row[];

  beforeAll(async () => {
    backupFile = path.join(temp.dir, 'backups', 'events-backup.sqlite');
    mkdirSync(path.dirname(backupFile));
    const writes = keepWriting(server!.url);
    await until(() => writes.created() >= 300);
    const before = writes.created();
    run = await petstore(dataDir, ['backup', backupFile]);
    createdDuringBackup = writes.created() - before;
    await until(() => writes.created() >= before + createdDuringBackup + 100);
    petIds = await writes.stop();
    copied = eventsOf(backupFile);
  }, 60_000);

  it('holds a prefix of the store: whole events, positions 1 to the last, as it reports', () => {
    const live = eventsOf(path.join(dataDir, 'events.sqlite'));
    const last = copied.length;
    expect(run).toEqual({
      code: 0,
      stdout: `${backupFile}: ${readFileSync(backupFile).length.toLocaleString('en')} bytes, ${last.toLocaleString('en')} events, up to position ${last}\n`,
      stderr: `petstore backup: store ${path.join(dataDir, 'events.sqlite')}\n`,
    });
    expect(createdDuringBackup).toBeGreaterThan(0);
    expect(copied.map((event) => event.position)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    for (const event of copied) {
      expect(JSON.parse(event.data)).toBeTypeOf('object');
      expect(JSON.parse(event.metadata)).toBeTypeOf('object');
    }
    expect(live.length).toBeGreaterThan(last);
    expect(copied).toEqual(live.slice(0, last));
    expect(readdirSync(path.dirname(backupFile))).toEqual(['events-backup.sqlite']);
  });

  it('restored in place of the store, starts a server that serves the pets it holds, and no other', async () => {
    const held = copied
      .filter((event) => event.type === 'PetCreated')
      .map((event) => (JSON.parse(event.data) as { id: number }).id);
    await server!.kill();
    server = undefined;
    const store = path.join(dataDir, 'events.sqlite');
    rmSync(`${store}-wal`, { force: true });
    rmSync(`${store}-shm`, { force: true });
    renameSync(backupFile, store);
    server = await startServerProcess({ ...ENV, PETSTORE_DATA_DIR: dataDir });

    const served: number[] = [];
    for (let page = `/v1/pets?limit=100`; ;) {
      const response = await fetch(`${server.url}${page}`, { headers });
      served.push(...((await response.json()) as { id: number }[]).map((pet) => pet.id));
      const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '');
      if (next === null) break;
      page = next[1]!;
    }
    const warnings = (pattern: RegExp) =>
      server!.output
        .filter((line) => pattern.test(line))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The read models load their snapshots at once: their warnings come in any order.
    const ignored = warnings(/snapshot ignored/).map(({ projection, why }) => ({ projection, why }));
    ignored.sort((a, b) => String(a.projection).localeCompare(String(b.projection)));
    expect(ignored).toEqual(
      ['api-keys', 'orders', 'pet-list'].map((projection) => ({
        projection,
        why: 'the snapshot was not made from this event store',
      })),
    );
    await until(() => warnings(/temporal index: not made from this event store/).length === 1);
    expect(served).toEqual([...held].sort((a, b) => a - b));
    const lost = petIds.filter((id) => !held.includes(id));
    expect(lost.length).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/v1/pets/${lost[0]}`, { headers })).status).toBe(404);
  }, 60_000);

  it('restored, hands out again the pet ids reserved after its last event', async () => {
    const reserved = copied
      .filter((event) => event.type === 'PetIdBlockReserved')
      .map((event) => (JSON.parse(event.data) as { last: number }).last);
    const created = await fetch(`${server!.url}/v1/pets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'After the restore', categoryId: 1 }),
    });
    const { id } = (await created.json()) as { id: number };
    expect(id).toBe(Math.max(...reserved) + 1);
    expect(petIds).toContain(id);
  });
});

describe('petstore backup --json', () => {
  it('with --json, says the same as one JSON object', async () => {
    const file = path.join(temp.dir, 'json.sqlite');
    const run = await petstore(dataDir, ['backup', '--json', file]);
    const last = eventsOf(file).length;
    expect([run.code, JSON.parse(run.stdout)]).toEqual([
      0,
      { file, bytes: readFileSync(file).length, events: last, lastPosition: String(last) },
    ]);
  });
});

describe('a backup interrupted by Ctrl-C (SIGINT) or a stop (SIGTERM)', () => {
  let big: ReturnType<typeof makeTempDir>;
  beforeAll(async () => {
    big = makeTempDir();
    await seedDataDir(big.dir, 200_000);
  }, 120_000);
  afterAll(() => big.remove());

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s: leaves no file, not even its unfinished copy, and exits %i',
    async (signal, status) => {
      const out = makeTempDir();
      try {
        const file = path.join(out.dir, 'backup.sqlite');
        const child = spawn(process.execPath, [PETSTORE_BIN, 'backup', file], {
          env: { ...process.env, PETSTORE_DATA_DIR: big.dir, LOG_LEVEL: 'silent' },
          stdio: 'ignore',
        });
        const exited = once(child, 'exit');
        // The unfinished copy exists from before the copy starts until it is linked into place.
        await until(() => readdirSync(out.dir).some((name) => name.endsWith('.partial')));
        child.kill(signal);
        const [code] = await exited;
        expect([code, readdirSync(out.dir)]).toEqual([status, []]);
      } finally {
        out.remove();
      }
    },
    60_000,
  );
});

describe('what petstore backup refuses', () => {
  it('a file that exists: left as it was', async () => {
    const file = path.join(temp.dir, 'taken.sqlite');
    writeFileSync(file, 'an earlier backup');
    expect(await petstore(dataDir, ['backup', file])).toEqual({
      code: 1,
      stdout: '',
      stderr: `petstore backup: store ${path.join(dataDir, 'events.sqlite')}\npetstore backup: ${file} already exists: a backup never replaces a file, name a new one\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe('an earlier backup');
  });

  it('a KurrentDB store: it has backups of its own', async () => {
    const run = await petstore(dataDir, ['backup', path.join(temp.dir, 'kurrent.sqlite')], {
      EVENT_STORE_URL: 'kurrentdb://admin:changeit@localhost:2113?tls=false',
    });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'petstore backup: store kurrentdb://localhost:2113?tls=false\n' +
        "petstore backup: EVENT_STORE_URL names a KurrentDB store, which this command does not back up: use KurrentDB's own backups (disk snapshots, or a copy of its db and index directories; see Backup under Operations in KurrentDB's server documentation)\n",
    });
  });

  it.each([
    ['through a file', 'a-file/backup.sqlite', 'a part of the path is a file, not a directory'],
    ['in a directory that does not exist', 'missing/backup.sqlite', 'the directory DIR does not exist'],
  ])('a path %s: one line, and no file left', async (_, relative, reason) => {
    const dir = makeTempDir();
    try {
      writeFileSync(path.join(dir.dir, 'a-file'), '');
      const file = path.join(dir.dir, relative);
      const run = await petstore(dataDir, ['backup', file]);
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `petstore backup: store ${path.join(dataDir, 'events.sqlite')}\npetstore backup: cannot write the backup ${file}: ${reason.replace('DIR', path.dirname(file))}\n`,
      });
      expect(readdirSync(dir.dir)).toEqual(['a-file']);
    } finally {
      dir.remove();
    }
  });

  it('a store that cannot be opened: named as the store, not as the backup', async () => {
    const dir = makeTempDir();
    try {
      const store = path.join(dir.dir, 'events.sqlite');
      mkdirSync(store);
      const file = path.join(dir.dir, 'backup.sqlite');
      expect(await petstore(dir.dir, ['backup', file])).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `petstore backup: store ${store}\n` +
          `petstore backup: cannot use the event store ${store}: it cannot be opened (SQLite: unable to open database file). Check that it is a file this user may read and write, in a directory it may write (SQLite keeps its -wal and -shm files beside it), on a file system not mounted read-only.\n`,
      });
      expect(readdirSync(dir.dir)).toEqual(['events.sqlite']);
    } finally {
      dir.remove();
    }
  });

  it('a store whose pages are damaged: named as the store, not as the backup, and no file left', async () => {
    const dir = makeTempDir();
    try {
      await seedDataDir(dir.dir, 20_000);
      const store = path.join(dir.dir, 'events.sqlite');
      damagePages(store);
      const file = path.join(dir.dir, 'backup.sqlite');
      expect(await petstore(dir.dir, ['backup', file])).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `petstore backup: store ${store}\n` +
          `petstore backup: cannot use the event store ${store}: it is damaged (SQLite: database disk image is malformed). Restore it from a backup, or point PETSTORE_DATA_DIR elsewhere.\n`,
      });
      expect(readdirSync(dir.dir)).toEqual(['events.sqlite']);
    } finally {
      dir.remove();
    }
  });

  it('no file named: a usage mistake', async () => {
    expect(await petstore(dataDir, ['backup'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'petstore backup: name the file to write the backup to\n\nUsage: petstore backup <file> [--json]\n',
    });
  });
});
