import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeysProjection } from '../../projections/api-keys.ts';
import { ordersProjection } from '../../projections/orders.ts';
import { petListProjection } from '../../projections/pet-list.ts';
import { snapshotDirectory } from '../../src/read-models/snapshot-file.ts';
import { petstore } from '../support/cli.ts';
import { openDataDirStore, seedDataDir } from '../support/seed-store.ts';
import {
  createApiKey,
  createScopedApiKey,
  type ServerProcess,
  startServerProcess,
} from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** `petstore projections …` as separate processes: on the files alone, then against a running server. */

const PETS = 5000;
const EVENTS = PETS + 1; // and the id block
let temp: ReturnType<typeof makeTempDir>;
let snapshots: ReturnType<typeof snapshotDirectory>;

beforeAll(async () => {
  temp = makeTempDir();
  snapshots = snapshotDirectory(path.join(temp.dir, 'snapshots'));
  await seedDataDir(temp.dir, PETS);
});
afterAll(() => temp.remove());

const projections = (args: string[], env: Record<string, string> = {}) =>
  petstore(temp.dir, ['projections', ...args], env);
const statusOf = async (name: string, args: string[] = [], env: Record<string, string> = {}) => {
  const { stdout } = await projections(['status', '--json', ...args], env);
  return (JSON.parse(stdout) as { name: string }[]).find((status) => status.name === name);
};

/** Three pets, then an event of a type this release does not know (PetVaccinated, at position 5). */
async function seedAStoreANewerReleaseWroteTo(dataDir: string): Promise<void> {
  await seedDataDir(dataDir, 3);
  const store = openDataDirStore(dataDir);
  const metadata = {
    eventId: randomUUID(),
    occurredAt: '2026-11-27T00:00:00.000Z',
    correlationId: 'c',
    schemaVersion: 1,
  };
  await store.appendToStream('pet-2', [{ type: 'PetVaccinated', data: { id: 2 }, metadata }]);
  await store.close();
}

/** A snapshot that checks out (right format, checksum, store) but whose state is wrong: pet 5 renamed. */
async function snapshotWithAWrongName(): Promise<void> {
  const loaded = await snapshots.load('pet-list');
  if (!loaded.ok) throw new Error(loaded.reason);
  const {
    parts,
    format: _format,
    formatVersion: _v,
    savedAt: _at,
    bodyBytes: _b,
    sha256: _s,
    ...meta
  } = loaded.snapshot;
  const [first, ...rest] = parts as { names: string[] }[];
  first!.names[4] = 'Tampered';
  await snapshots.save(meta, [first, ...rest]);
}

/**
 * Runs `check` while pet-list's snapshot is one that checks out (format, checksum) but was made from
 * another store, one with more events: a store restored from a backup finds such a file beside it.
 */
async function withASnapshotOfAnotherStore(check: () => Promise<void>): Promise<void> {
  const file = path.join(temp.dir, 'snapshots', 'pet-list.snapshot');
  const good = readFileSync(file);
  const loaded = await snapshots.load('pet-list');
  if (!loaded.ok) throw new Error(loaded.reason);
  const { parts, projection, version } = loaded.snapshot;
  await snapshots.save(
    { projection, version, checkpoint: String(EVENTS + 10), checkpointEventId: randomUUID() },
    parts,
  );
  try {
    await check();
  } finally {
    writeFileSync(file, good);
  }
}

/** Runs `check` while one bit of pet-list's snapshot body is flipped: its checksum no longer matches. */
async function withACorruptedSnapshot<T>(check: () => Promise<T>): Promise<T> {
  const file = path.join(temp.dir, 'snapshots', 'pet-list.snapshot');
  const good = readFileSync(file);
  const bad = Buffer.from(good);
  bad[bad.length - 10] = bad[bad.length - 10]! ^ 1;
  writeFileSync(file, bad);
  try {
    return await check();
  } finally {
    writeFileSync(file, good);
  }
}

/** Runs `check` while pet-list's snapshot has a NUL byte inside its header: no header this code reads. */
async function withADamagedHeader<T>(check: () => Promise<T>): Promise<T> {
  const file = path.join(temp.dir, 'snapshots', 'pet-list.snapshot');
  const good = readFileSync(file);
  const bad = Buffer.from(good);
  bad[5] = 0;
  writeFileSync(file, bad);
  try {
    return await check();
  } finally {
    writeFileSync(file, good);
  }
}

describe('on the store and snapshot files alone', () => {
  it('status: no snapshot yet, so a server would fold every event', async () => {
    expect(await statusOf('pet-list')).toEqual({
      name: 'pet-list',
      version: petListProjection.version,
      checkpoint: null,
      lag: { events: EVENTS, capped: false, seconds: expect.any(Number) },
      snapshot: null,
      unreadableSnapshot: null,
      interimFromVersion: null,
      unknownEvents: [],
      rebuild: null,
    });
  });

  it('status: lists every read model a server keeps, orders included', async () => {
    const { stdout } = await projections(['status', '--json']);
    expect((JSON.parse(stdout) as { name: string }[]).map((status) => status.name)).toEqual([
      'pet-list',
      'api-keys',
      'orders',
    ]);
  });

  it('rebuild orders: folds every event and saves its snapshot', async () => {
    const { code, stdout } = await projections(['rebuild', 'orders']);
    expect([code, stdout]).toEqual([0, `orders: rebuilt from ${EVENTS} events; snapshot saved\n`]);
    expect(await statusOf('orders')).toMatchObject({
      snapshot: { version: ordersProjection.version, checkpoint: String(EVENTS) },
    });
  });

  it('rebuild: refuses --json, which it has no output for, as a mistake in the command line', async () => {
    expect(await projections(['rebuild', 'orders', '--json'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'petstore projections rebuild: unknown option --json\n\n' +
        'Usage: petstore projections rebuild [name] [--url URL]\n',
    });
  });

  it('rebuild: folds every event with plain progress lines off a terminal, and saves the snapshot', async () => {
    const { code, stdout, stderr } = await projections(['rebuild', 'pet-list']);
    expect([code, stdout]).toEqual([0, `pet-list: rebuilt from ${EVENTS} events; snapshot saved\n`]);
    expect(stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^pet-list: 100%, 5,001 events, [\d,]+ events\/s, ETA 0 s$/,
    );
    expect(await statusOf('pet-list')).toMatchObject({
      checkpoint: String(EVENTS),
      lag: { events: 0, capped: false, seconds: 0 },
      snapshot: { version: petListProjection.version, checkpoint: String(EVENTS) },
    });
  });

  it('rebuild: exits 1 naming the snapshot and why, when it cannot be written', async () => {
    const blocked = makeTempDir();
    try {
      await seedDataDir(blocked.dir, 3);
      writeFileSync(path.join(blocked.dir, 'snapshots'), 'a file in the way');
      const { code, stdout, stderr } = await petstore(blocked.dir, ['projections', 'rebuild', 'pet-list']);
      expect([code, stdout, stderr.trimEnd().split('\n').at(-1)]).toEqual([
        1,
        '',
        `petstore projections rebuild: cannot write the snapshot ${blocked.dir}/snapshots/pet-list.snapshot: a file is in the way (${blocked.dir}/snapshots)`,
      ]);
    } finally {
      blocked.remove();
    }
  });

  it('rebuild: exits 1 and writes no snapshot, naming the event a newer release wrote that this one does not know', async () => {
    const newer = makeTempDir();
    try {
      await seedAStoreANewerReleaseWroteTo(newer.dir);
      const { code, stdout, stderr } = await petstore(newer.dir, ['projections', 'rebuild', 'pet-list']);
      expect([code, stdout, stderr.trimEnd().split('\n').at(-1)]).toEqual([
        1,
        '',
        'petstore projections rebuild: read model pet-list passed over events of a type this release does not know (PetVaccinated, first at position 5): a newer release wrote them: its snapshot is not saved. Rebuild it with that release, or a later one.',
      ]);
      expect(existsSync(path.join(newer.dir, 'snapshots', 'pet-list.snapshot'))).toBe(false);
    } finally {
      newer.remove();
    }
  });

  it('status: names, under the table, the event a newer release wrote that a start would pass over', async () => {
    const newer = makeTempDir();
    try {
      await seedAStoreANewerReleaseWroteTo(newer.dir);
      const { code, stdout } = await petstore(newer.dir, ['projections', 'status']);
      expect([code, stdout.trimEnd().split('\n').slice(4)]).toEqual([
        0,
        [
          'pet-list: NOT TRUSTED: passes over events of types this release does not know: PetVaccinated (first at 5); a newer release wrote them',
          'api-keys: NOT TRUSTED: passes over events of types this release does not know: PetVaccinated (first at 5); a newer release wrote them',
          'orders: NOT TRUSTED: passes over events of types this release does not know: PetVaccinated (first at 5); a newer release wrote them',
        ],
      ]);
    } finally {
      newer.remove();
    }
  });

  it('rebuild on a store that holds no events: says that no snapshot was written, and writes none', async () => {
    const empty = makeTempDir();
    try {
      await openDataDirStore(empty.dir).close();
      const { code, stdout } = await petstore(empty.dir, ['projections', 'rebuild', 'pet-list']);
      expect([code, stdout]).toEqual([
        0,
        'pet-list: rebuilt from 0 events; the store holds no events, so no snapshot was written\n',
      ]);
      expect(existsSync(path.join(empty.dir, 'snapshots', 'pet-list.snapshot'))).toBe(false);
    } finally {
      empty.remove();
    }
  });

  it('verify: the snapshot is what a fresh fold gives', async () => {
    const { code, stdout } = await projections(['verify', 'pet-list']);
    expect(code).toBe(0);
    expect(stdout).toContain(`snapshot:        same as a fresh fold of every event (at position ${EVENTS})`);
  });

  it('verify: exits 1 and names the first difference of a snapshot that checks out but is wrong', async () => {
    await snapshotWithAWrongName();
    const { code, stdout } = await projections(['verify', 'pet-list']);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `snapshot:        DIFFERS from a fresh fold (at position ${EVENTS}): first at [0].names[4] (id 5): fresh "Pet 5", snapshot "Tampered"`,
    );
  });

  it('verify: exits 1 on a snapshot of another store, past this one’s last event, saying why it is refused', async () => {
    await withASnapshotOfAnotherStore(async () => {
      const { code, stdout } = await projections(['verify', 'pet-list']);
      expect([
        code,
        stdout.includes('snapshot:        REFUSED: the snapshot was not made from this event store'),
      ]).toEqual([1, true]);
    });
  });

  it('status: a snapshot of another store is not what a server would start from', async () => {
    await withASnapshotOfAnotherStore(async () => {
      expect(await statusOf('pet-list')).toMatchObject({
        checkpoint: null,
        lag: { events: EVENTS, capped: false },
        snapshot: {
          version: petListProjection.version,
          checkpoint: String(EVENTS + 10),
          refused: 'the snapshot was not made from this event store',
        },
      });
    });
  });

  it('status: a corrupted snapshot is shown refused, with why, and every event to fold', async () => {
    const { stdout } = await withACorruptedSnapshot(() => projections(['status']));
    const row = stdout.split('\n').find((line) => line.startsWith('pet-list'));
    // The lag's seconds are the age of the store's first event.
    expect(row).toMatch(
      /^pet-list +4 +- +5001 events, [\d.]+ s +v4 at 5001, \d+ s old, REFUSED: the body does not match its SHA-256: corrupted +-$/,
    );
  });

  it('status: a snapshot whose header is damaged is shown refused, with why, not as no file', async () => {
    const { code, stdout } = await withADamagedHeader(() => projections(['status']));
    const row = stdout.split('\n').find((line) => line.startsWith('pet-list'));
    expect(code).toBe(0);
    expect(row).toMatch(
      /^pet-list +4 +- +5001 events, [\d.]+ s +REFUSED: no snapshot header: not a snapshot file +-$/,
    );
  });

  it('status --json: a snapshot whose header is damaged is no snapshot, and unreadableSnapshot says why', async () => {
    expect(await withADamagedHeader(() => statusOf('pet-list'))).toEqual(
      expect.objectContaining({
        checkpoint: null,
        snapshot: null,
        unreadableSnapshot: 'no snapshot header: not a snapshot file',
      }),
    );
  });

  it('verify: exits 1 on a corrupted snapshot, saying why it is refused', async () => {
    const { code, stdout } = await withACorruptedSnapshot(() => projections(['verify', 'pet-list']));
    expect([
      code,
      stdout.includes('snapshot:        REFUSED: the body does not match its SHA-256: corrupted'),
    ]).toEqual([1, true]);
  });
});

describe('against a running server (--url)', () => {
  let server: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The server starts from the snapshot that checks out but is wrong: its live read model is wrong too.
    server = await startServerProcess({ PETSTORE_DATA_DIR: temp.dir });
    const key = createScopedApiKey({ PETSTORE_DATA_DIR: temp.dir }, ['admin', 'pets:read']);
    env = { PETSTORE_API_KEY: key };
  });
  afterAll(() => server?.kill());

  it('verify: names the first difference in the live read model and in the snapshot, and exits 1', async () => {
    const { code, stdout } = await projections(['verify', 'pet-list', '--url', server.url], env);
    expect(code).toBe(1);
    expect(stdout).toContain('live read model: DIFFERS from a fresh fold');
    expect(stdout).toContain('first at [0].names[4] (id 5): fresh "Pet 5", live "Tampered"');
    expect(stdout).toContain('first at [0].names[4] (id 5): fresh "Pet 5", snapshot "Tampered"');
  });

  it('rebuild: swaps a fresh read model in, and the server answers right from then on', async () => {
    const savedAt = async () => {
      const read = await snapshots.header('pet-list');
      return read?.ok === true ? read.header.savedAt : undefined;
    };
    const before = await savedAt();
    const { code, stdout } = await projections(['rebuild', 'pet-list', '--url', server.url], env);
    expect([code, stdout]).toEqual([
      0,
      `pet-list: rebuilt from ${EVENTS + 1} events; swapped in for the live read model\n`,
    ]);
    const pet = await fetch(`${server.url}/v1/pets/5`, {
      headers: { authorization: `Bearer ${env.PETSTORE_API_KEY}` },
    });
    expect(((await pet.json()) as { name: string }).name).toBe('Pet 5');
    // The server saves the new read model as its snapshot once swapped in.
    await expect.poll(savedAt).not.toBe(before);
    const verified = await projections(['verify', '--url', server.url], env);
    expect(verified.code).toBe(0);
    expect(verified.stdout.split('\n').filter((line) => line.includes('same as a fresh fold'))).toHaveLength(
      5, // pet-list and orders: live and snapshot; api-keys: live
    );
    expect(verified.stdout).toContain(
      `orders v${ordersProjection.version}:\n  live read model: same as a fresh fold`,
    );
    expect(verified.stdout).toContain(
      `api-keys v${apiKeysProjection.version}:\n  live read model: same as a fresh fold`,
    );
    expect(verified.stdout).toContain('snapshot:        not compared: no snapshot'); // api-keys: none saved yet
  });

  it('status: the live read model’s checkpoint and lag, and the last rebuild', async () => {
    expect(await statusOf('pet-list', ['--url', server.url], env)).toMatchObject({
      checkpoint: String(EVENTS + 1), // the key the server was given is an event too
      lag: { events: 0, capped: false, seconds: 0 },
      rebuild: {
        state: 'done',
        events: EVENTS + 1,
        position: String(EVENTS + 1),
        target: String(EVENTS + 1),
      },
    });
  });

  it('needs a key with the admin scope', async () => {
    expect(await projections(['status', '--url', server.url])).toMatchObject({
      code: 2,
      stderr:
        'petstore projections status: --url needs an API key with the admin scope in PETSTORE_API_KEY\n',
    });
    const reader = createApiKey({ PETSTORE_DATA_DIR: temp.dir }, ['--plan', 'free', '--scopes', 'pets:read']);
    const refused = await projections(['status', '--url', server.url], { PETSTORE_API_KEY: reader });
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('answered 403 insufficient_scope'),
    });
  });
});

describe('a --url that is not this service’s admin API', () => {
  it('is one line naming what answered, status 1', async () => {
    const other = createServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here');
    }).listen(0, '127.0.0.1');
    await once(other, 'listening');
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const { code, stderr } = await projections(['status', '--url', url], { PETSTORE_API_KEY: 'psk_any' });
      expect([code, stderr]).toEqual([
        1,
        `petstore projections status: ${url} answered something other than this service's admin API (status 404, text/plain): is --url the service's address?\n`,
      ]);
    } finally {
      other.close();
    }
  });

  it.each(['localhost:3000', 'http://[::1', 'http://127.0.0.1:3000/?x=1', 'http://127.0.0.1:3000?'])(
    'refuses --url %s, which is not an http:// or https:// address, as a mistake in the command line',
    async (url) => {
      const { code, stderr } = await projections(['status', '--url', url], { PETSTORE_API_KEY: 'psk_any' });
      expect([code, stderr.split('\n')[0]]).toEqual([
        2,
        `petstore projections status: --url must be the server's http:// or https:// address, such as http://127.0.0.1:3000 (not ${JSON.stringify(url)})`,
      ]);
    },
  );

  it.each(['http://ops:s3cret@127.0.0.1:3000', 'http://ops:s3cret@[::1'])(
    'refuses --url %s, with credentials in it, without repeating them',
    async (url) => {
      const { code, stderr } = await projections(['status', '--url', url], { PETSTORE_API_KEY: 'psk_any' });
      expect([code, stderr.split('\n')[0]]).toEqual([
        2,
        `petstore projections status: --url must be the server's http:// or https:// address, such as http://127.0.0.1:3000, with no credentials in it: the key goes in PETSTORE_API_KEY (not ${JSON.stringify(url.replace('ops:s3cret', '…'))})`,
      ]);
    },
  );

  it.each([
    'http://ops:s3/cret@127.0.0.1:3000',
    'http://ops:s3?cret@127.0.0.1:3000',
    'http://ops:s3#cret@127.0.0.1:3000',
  ])(
    'refuses --url %s, whose password holds a character that ends a URL’s host, without repeating it',
    async (url) => {
      const { code, stderr } = await projections(['status', '--url', url], { PETSTORE_API_KEY: 'psk_any' });
      expect([code, stderr.split('\n')[0]]).toEqual([
        2,
        `petstore projections status: --url must be the server's http:// or https:// address, such as http://127.0.0.1:3000, with no credentials in it: the key goes in PETSTORE_API_KEY (not "http://…@127.0.0.1:3000")`,
      ]);
    },
  );

  it('refuses a PETSTORE_API_KEY no header can carry, without repeating it', async () => {
    const { code, stderr } = await projections(['status', '--url', 'http://127.0.0.1:9'], {
      PETSTORE_API_KEY: 'psk_secret\nmore',
    });
    expect([code, stderr]).toEqual([
      1,
      'petstore projections status: PETSTORE_API_KEY is not a valid header value (a line break or another control character?)\n',
    ]);
  });
});

describe('a --url server of the release before unknownEvents (a rolling upgrade under way)', () => {
  it('status: prints the table of a server that reports no unknownEvents, and exits 0', async () => {
    // What GET /v1/admin/projections of that release answers: no unknownEvents.
    const earlier = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(
        JSON.stringify([
          {
            name: 'pet-list',
            version: 4,
            checkpoint: '1',
            lag: { events: 0, capped: false, seconds: 0 },
            snapshot: null,
            interimFromVersion: null,
            rebuild: null,
          },
        ]),
      );
    }).listen(0, '127.0.0.1');
    await once(earlier, 'listening');
    const url = `http://127.0.0.1:${(earlier.address() as AddressInfo).port}`;
    try {
      const { code, stdout, stderr } = await projections(['status', '--url', url], {
        PETSTORE_API_KEY: 'psk_any',
      });
      expect([code, stdout, stderr]).toEqual([
        0,
        'PROJECTION  VERSION  CHECKPOINT  LAG            SNAPSHOT  REBUILD\n' +
          'pet-list    4        1           0 events, 0 s  -         -\n',
        '',
      ]);
    } finally {
      earlier.close();
    }
  });
});

describe('a --url server that loses a rebuild it was running (restarted meanwhile)', () => {
  it('rebuild: one line saying so, status 1, not an unexpected failure', async () => {
    const running = {
      state: 'running',
      events: 0,
      position: null,
      target: '9',
      eventsPerSecond: 0,
      etaSeconds: null,
      startedAt: '2026-11-27T00:00:00.000Z',
    };
    const restarted = createServer((request, response) => {
      const json = { 'content-type': 'application/json; charset=utf-8' };
      if (request.method === 'POST') return response.writeHead(202, json).end(JSON.stringify(running));
      response.writeHead(200, json).end(JSON.stringify([{ name: 'pet-list', rebuild: null }]));
    }).listen(0, '127.0.0.1');
    await once(restarted, 'listening');
    const url = `http://127.0.0.1:${(restarted.address() as AddressInfo).port}`;
    try {
      const { code, stderr } = await projections(['rebuild', 'pet-list', '--url', url], {
        PETSTORE_API_KEY: 'psk_any',
      });
      expect([code, stderr.trimEnd().split('\n').at(-1)]).toEqual([
        1,
        `petstore projections rebuild: ${url} no longer reports the rebuild of pet-list (did it restart?): see petstore projections status --url ${url}`,
      ]);
    } finally {
      restarted.close();
    }
  });
});
