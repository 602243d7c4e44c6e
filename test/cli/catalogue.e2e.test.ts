import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { AS_OF_SCAN_LIMIT } from '../../src/application/ports/read-models.ts';
import { startService } from '../../src/service.ts';
import { seedDataDir } from '../../bench/seed.ts';
import { rewriteEvent } from '../support/damage.ts';
import { controlledClock } from '../support/guarded-app.ts';
import { runPetstore } from '../support/petstore-cli.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** `petstore catalogue --as-of` as an auditor runs it: a real process over a store with a past. */

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const temp = makeTempDir();
const MONDAY = Date.UTC(2030, 0, 14, 9, 0, 0);

beforeAll(async () => {
  const clock = controlledClock(MONDAY);
  const config = loadConfig({ NODE_ENV: 'test', PETSTORE_DATA_DIR: temp.dir });
  const service = await startService(config, pino({ level: 'silent' }), { clock });
  const context = { correlationId: 'seed' };
  const rex = await service.application.createPet(
    { name: 'Rex', categoryId: 1, status: 'available' },
    context,
  );
  await service.application.createPet({ name: 'Tom', categoryId: 2 }, context);
  clock.advance(3_600_000);
  await service.application.updatePet(rex.pet.id, { status: 'sold' }, context);
  await service.stop();
});
afterAll(() => temp.remove());

const catalogue = (...args: string[]) =>
  run(process.execPath, [path.join(ROOT, 'bin/petstore.js'), 'catalogue', ...args], {
    cwd: ROOT,
    env: { ...process.env, PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'silent' },
  });

it('prints the catalogue as of a time, one pet per line as JSON', async () => {
  const { stdout } = await catalogue('--as-of', '2030-01-14T09:30:00Z');
  expect(
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  ).toEqual([
    { id: expect.any(Number), name: 'Rex', categoryId: 1, status: 'available', version: 0 },
    { id: expect.any(Number), name: 'Tom', categoryId: 2, version: 0 },
  ]);
});

it('filters by the status each pet had then', async () => {
  const { stdout } = await catalogue('--as-of', '2030-01-14T10:30:00Z', '--status', 'sold');
  expect(
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).name),
  ).toEqual(['Rex']);
});

it('refuses an --as-of that is neither a time nor a position, with one line and exit code 2', async () => {
  const failure = await catalogue('--as-of', 'last monday').catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure).toMatchObject({
    code: 2,
    stderr:
      'petstore catalogue: --as-of must be an RFC 3339 time (2026-11-16T09:00:00Z) or a store position.\n\n' +
      'Usage: petstore catalogue --as-of <RFC 3339 time | store position> [--status available|pending|sold]\n',
  });
});

it('refuses a position past the store’s last event with exit code 2, as REST answers 400', async () => {
  const failure = await catalogue('--as-of', '999').catch((error: { code: number; stderr: string }) => error);
  expect(failure).toMatchObject({ code: 2 });
  expect((failure as { stderr: string }).stderr.split('\n')[1]).toBe(
    "petstore catalogue: --as-of 999 is past the store's last event (4): only send positions this service gave.",
  );
});

it(`prints every pet of a large catalogue in which few existed then, past the index's pages that end short`, async () => {
  const large = makeTempDir();
  try {
    await seedDataDir(large.dir, AS_OF_SCAN_LIMIT + 5); // position 1: the id block; pet n at position n + 1
    const { code, stdout } = await runPetstore(['catalogue', '--as-of', '3'], {
      env: { PETSTORE_DATA_DIR: large.dir },
      timeoutMs: 20_000,
    });
    expect([
      code,
      stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: number }).id),
    ]).toEqual([0, [1, 2]]);
  } finally {
    large.remove();
  }
});

it('ends with the reason and exit code 1, instead of waiting forever, at an event it cannot read', async () => {
  const damaged = makeTempDir();
  try {
    await seedDataDir(damaged.dir, 10);
    rewriteEvent(path.join(damaged.dir, 'events.sqlite'), 4, 'metadata', 'null');
    const { code, stderr } = await runPetstore(['catalogue', '--as-of', '11'], {
      env: { PETSTORE_DATA_DIR: damaged.dir },
      timeoutMs: 20_000,
    });
    expect([code, stderr.trimEnd().split('\n')[1]]).toEqual([
      1,
      'petstore catalogue: The event at position 4 (stream pet-3, revision 0, PetCreated) cannot be read: its metadata is null, not a JSON object. ' +
        'The service writes no such event: the store was changed outside it. Restore the store from a backup.',
    ]);
  } finally {
    damaged.remove();
  }
});

it('sets a damaged temporal index aside and rebuilds it from the events, saying so, instead of blaming the store', async () => {
  const damaged = makeTempDir();
  try {
    await seedDataDir(damaged.dir, 3);
    const index = path.join(damaged.dir, 'temporal-index.sqlite');
    writeFileSync(index, Buffer.alloc(8192, 7));
    const { code, stdout, stderr } = await runPetstore(['catalogue', '--as-of', '4'], {
      env: { PETSTORE_DATA_DIR: damaged.dir },
      timeoutMs: 20_000,
    });
    const aside = readdirSync(damaged.dir).find((name) => name.startsWith('temporal-index.sqlite.damaged-'));
    expect([code, stdout.trim().split('\n').length, stderr.trimEnd().split('\n')[1]]).toEqual([
      0,
      3,
      `petstore catalogue: the temporal index ${index} is damaged (file is not a database): moved it to ${path.join(damaged.dir, aside!)}; rebuilding it from the events`,
    ]);
  } finally {
    damaged.remove();
  }
});

it('names a temporal index it cannot open, and says to delete it, with exit code 1', async () => {
  const blocked = makeTempDir();
  try {
    await seedDataDir(blocked.dir, 3);
    const index = path.join(blocked.dir, 'temporal-index.sqlite');
    mkdirSync(index);
    const { code, stderr } = await runPetstore(['catalogue', '--as-of', '4'], {
      env: { PETSTORE_DATA_DIR: blocked.dir },
      timeoutMs: 20_000,
    });
    expect([code, stderr.trimEnd().split('\n')[1]]).toEqual([
      1,
      `petstore catalogue: cannot use the temporal index ${index}: it cannot be opened (SQLite: unable to open database file). It is derived from the events: delete it to rebuild it.`,
    ]);
  } finally {
    blocked.remove();
  }
});
