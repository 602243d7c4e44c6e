import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/application/commands/api-keys.ts';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { systemClock } from '../../src/shared/context.ts';
import { petstore } from '../support/cli.ts';
import { rewriteEvent } from '../support/damage.ts';
import { openDataDirStore, seedPets } from '../support/seed-store.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** `petstore events` as a separate process, on a store written beforehand. */

const ROOT = path.resolve(import.meta.dirname, '../..');
let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;

beforeAll(async () => {
  temp = makeTempDir();
  store = openDataDirStore(temp.dir);
  await seedPets(store, 3000);
  await store.appendToStream('pet-2', [
    {
      type: 'PetRenamed',
      data: { id: 2, name: 'Max', previousName: 'Pet 2' },
      metadata: {
        eventId: 'e-rename',
        occurredAt: '2026-11-23T10:00:00.000Z',
        correlationId: 'req-7',
        schemaVersion: 1,
      },
    },
  ]);
});
afterAll(async () => {
  await store.close();
  temp.remove();
});

const storeFile = () => path.join(temp.dir, 'events.sqlite');
const events = (...args: string[]) => petstore(temp.dir, ['events', ...args]);
const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('petstore events', () => {
  it('prints every event as a JSON line, in store order, as the audit feed shows it', async () => {
    const { code, stdout, stderr } = await events();
    const printed = lines(stdout);
    expect([code, stderr, printed.length]).toEqual([0, `petstore events: store ${storeFile()}\n`, 3002]);
    expect(printed.map((event) => event.position)).toEqual(
      Array.from({ length: 3002 }, (_, i) => String(i + 1)),
    );
    expect(printed.at(-1)).toEqual({
      position: '3002',
      stream: 'pet-2',
      revision: 1,
      type: 'PetRenamed',
      time: '2026-11-23T10:00:00.000Z',
      actor: null,
      requestId: 'req-7',
      data: { id: 2, name: 'Max', previousName: 'Pet 2' },
    });
  });

  it('prints one stream, one type, or from a position on', async () => {
    expect(lines((await events('--stream', 'pet-2')).stdout).map((event) => event.type)).toEqual([
      'PetCreated',
      'PetRenamed',
    ]);
    expect(lines((await events('--type', 'PetRenamed')).stdout).map((event) => event.position)).toEqual([
      '3002',
    ]);
    expect(lines((await events('--from', '3000')).stdout).map((event) => event.position)).toEqual([
      '3000',
      '3001',
      '3002',
    ]);
  });

  it('refuses a --from that is not a position, with exit code 2', async () => {
    expect(await events('--from', 'monday')).toMatchObject({
      code: 2,
      stderr:
        'petstore events: --from takes a store position (decimal digits), not "monday"\n\n' +
        'Usage: petstore events [--stream S] [--type T] [--from P] [--follow]\n',
    });
  });

  it('refuses a --from past the next event, naming --from and the last position, with exit code 2', async () => {
    const head = await store.headPosition();
    expect(await events('--from', String(head! + 2n))).toMatchObject({
      code: 2,
      stderr: `petstore events: store ${storeFile()}\npetstore events: --from ${head! + 2n} is past the store's last event (${head}): only send positions this service gave.\n`,
    });
  });

  it('ends quietly when its reader goes away (| head): no EPIPE trace, exit code 0', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/petstore.js'), 'events'], {
      cwd: ROOT,
      env: { ...process.env, PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit');
    const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    child.stdout.destroy(); // what head does after its lines
    const [code] = (await exited) as [number];
    expect([JSON.parse(first).position, code, stderr]).toEqual([
      '1',
      0,
      `petstore events: store ${storeFile()}\n`,
    ]);
  });

  it('follows: prints the events stored after it started, until interrupted', async () => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/petstore.js'), 'events', '--follow', '--type', 'PetRemoved'],
      {
        cwd: ROOT,
        env: { ...process.env, PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = once(child, 'exit');
    const printed = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    await new Promise((resolve) => setTimeout(resolve, 1500)); // it has started and printed what there was (nothing)
    const metadata = {
      eventId: 'e-remove',
      occurredAt: '2026-11-23T10:01:00.000Z',
      correlationId: 'req-8',
      schemaVersion: 1,
    };
    const { position } = await store.appendToStream('pet-3', [
      { type: 'PetRemoved', data: { id: 3 }, metadata },
    ]);
    const line = await printed.next();
    expect(JSON.parse(line.value as string)).toMatchObject({
      position: String(position),
      type: 'PetRemoved',
    });
    child.kill('SIGINT');
    expect(((await exited) as [number])[0]).toBe(0);
  });

  it('stops following at SIGTERM while its reader has stopped reading, with exit code 0', async () => {
    const child = unreadEvents('--follow');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // it has filled the pipe and waits on it
    child.kill('SIGTERM');
    expect(await exitWithin(child, 5000)).toBe(0);
  });

  it('exits with 143 when SIGTERM cuts the events short, so that a script does not take them for all', async () => {
    const child = unreadEvents();
    await new Promise((resolve) => setTimeout(resolve, 1500)); // a page in, it waits on the full pipe
    child.kill('SIGTERM');
    expect(await exitWithin(child, 5000)).toBe(143);
  });
});

describe('petstore events on a store with an event it cannot read', () => {
  const damaged = makeTempDir();
  let keyId: string;
  const UNREADABLE =
    'petstore events: The event at position 14 (stream pet-2, revision 1, PetRenamed) cannot be read: ' +
    `its data is not JSON (Unexpected token 'o', "not json" is not valid JSON). The service writes no such ` +
    'event: the store was changed outside it. Restore the store from a backup.';

  /**
   * The id block and ten pets (positions 1 to 11), the key "shop" (12), which renames pet 1 (13),
   * pet 2 (14, whose data is then made unreadable) and pet 1 again (15).
   */
  beforeAll(async () => {
    const store = openDataDirStore(damaged.dir);
    try {
      await seedPets(store, 10);
      const { key } = await issueApiKey(
        { store, clock: systemClock },
        { plan: 'free', name: 'shop' },
        { correlationId: 'req-key' },
      );
      keyId = key.keyId;
      const rename = (id: number, revision: bigint, name: string) =>
        store.appendToStream(
          `pet-${id}`,
          [
            {
              type: 'PetRenamed',
              data: { id, name, previousName: `Pet ${id}` },
              metadata: {
                eventId: randomUUID(),
                occurredAt: '2026-11-23T10:00:00.000Z',
                correlationId: `req-${name}`,
                schemaVersion: 1,
                apiKeyId: keyId,
              },
            },
          ],
          { expectedRevision: revision },
        );
      await rename(1, 0n, 'Max');
      await rename(2, 0n, 'Tom');
      await rename(1, 1n, 'Rex');
    } finally {
      await store.close();
    }
    rewriteEvent(path.join(damaged.dir, 'events.sqlite'), 14, 'data', 'not json');
  });
  afterAll(() => damaged.remove());

  const run = (...args: string[]) => petstore(damaged.dir, ['events', ...args]);

  it('prints every event before it, naming the keys they know, then exits 1 naming it', async () => {
    const { code, stdout, stderr } = await run();
    const printed = lines(stdout);
    expect([code, stderr.split('\n')[1], printed.map((event) => event.position)]).toEqual([
      1,
      UNREADABLE,
      Array.from({ length: 13 }, (_, i) => String(i + 1)),
    ]);
    expect(printed.at(-1)).toMatchObject({ type: 'PetRenamed', actor: { keyId, name: 'shop' } });
  });

  it('--follow: prints every event before it, then exits 1 naming it', async () => {
    const { code, stdout, stderr } = await run('--follow');
    expect([code, stderr.split('\n')[1], lines(stdout).map((event) => event.position)]).toEqual([
      1,
      UNREADABLE,
      Array.from({ length: 13 }, (_, i) => String(i + 1)),
    ]);
  });

  it('--stream of another stream: prints its events before it, then exits 1 naming it, since the names of keys past it are unknown', async () => {
    const { code, stdout, stderr } = await run('--stream', 'pet-1');
    expect([code, stderr.split('\n')[1], lines(stdout).map((event) => event.position)]).toEqual([
      1,
      UNREADABLE,
      ['2', '13'],
    ]);
  });
});

/** `petstore events …` whose stdout nobody reads: the pipe fills up and the command waits on it. */
function unreadEvents(...args: string[]) {
  return spawn(process.execPath, [path.join(ROOT, 'bin/petstore.js'), 'events', ...args], {
    cwd: ROOT,
    env: { ...process.env, PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** The child's exit code, or 'still running' after `ms` (the child then killed). */
async function exitWithin(child: ReturnType<typeof spawn>, ms: number): Promise<number | string> {
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return code ?? 'still running';
}
