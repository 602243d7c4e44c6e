import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore, NewEvent } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** Behaviour of the embedded adapter beyond the port's contract: group commit and closing. */
let temp: ReturnType<typeof makeTempDir>;
let file: string;
beforeEach(() => {
  temp = makeTempDir();
  file = path.join(temp.dir, 'events.sqlite');
});
afterEach(() => temp.remove());

function event(data: Record<string, unknown> = {}): NewEvent {
  return {
    type: 'Tested',
    data,
    metadata: {
      eventId: randomUUID(),
      occurredAt: '2026-01-01T00:00:00.000Z',
      correlationId: 'c',
      schemaVersion: 1,
    },
  };
}

async function reopened(): Promise<EventStore> {
  return openSqliteEventStore({ file });
}

describe('embedded store', () => {
  it('commits an append still queued when it is closed, and does not fail afterwards', async () => {
    const store = openSqliteEventStore({ file });
    const appended = store.appendToStream('s', [event()]);
    await store.close();
    await expect(appended).resolves.toMatchObject({ nextExpectedRevision: 0n });
    await new Promise((resolve) => setImmediate(resolve)); // the flush it had scheduled runs now
    const again = await reopened();
    expect(await again.readStream('s')).toHaveLength(1);
    await again.close();
  });

  it('wakes a subscription of this process as soon as its own append commits, not at the next poll', async () => {
    const store = openSqliteEventStore({ file, pollIntervalMs: 60_000 });
    const subscription = store.subscribeToAll();
    const events = subscription[Symbol.asyncIterator]();
    const first = events.next(); // caught up on an empty store: asleep until woken
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { position } = await store.appendToStream('s', [event()]);
    const delivered = await Promise.race([
      first.then(({ value }) => value.position),
      new Promise((resolve) => setTimeout(() => resolve('not woken within 5 s'), 5_000)),
    ]);
    expect(delivered).toBe(position);
    await subscription.close();
    await store.close();
  });

  it('lets a process that never closes it exit once its appends are done', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = path.resolve(import.meta.dirname, '../support/append-without-close.ts');
    const output = execFileSync(process.execPath, [script, file], { encoding: 'utf8', timeout: 20_000 });
    expect(output).toBe('appended at 1\n');
  });

  it('leaves neither stream of an append to two streams when the process is killed between them', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = path.resolve(import.meta.dirname, '../support/append-two-streams.ts');
    const run = spawnSync(process.execPath, [script, file], { encoding: 'utf8', timeout: 20_000 });
    expect(run.signal).toBe('SIGKILL');
    const store = await reopened();
    expect(await store.readStream('order-1')).toEqual([]);
    expect(await store.readStream('pet-1')).toEqual([]);
    await store.close();
  });

  it('fails only the append whose event cannot be serialised, not the group it would have joined', async () => {
    const store = openSqliteEventStore({ file });
    const results = await Promise.allSettled([
      store.appendToStream('good-1', [event()]),
      store.appendToStream('bad', [event({ amount: 10n })]),
      store.appendToStream('good-2', [event()]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await store.readStream('bad')).toEqual([]);
    await store.close();
  });
});

describe('embedded store opened by several processes at once', () => {
  it('lets every process open a new store file at the same moment', async () => {
    const { spawn } = await import('node:child_process');
    const script = path.resolve(import.meta.dirname, '../support/append-burst.ts');
    const exits = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<number | null>((resolve) =>
            spawn(process.execPath, [script, file, '5'], { stdio: 'ignore' }).on('exit', resolve),
          ),
      ),
    );
    expect(exits).toEqual([0, 0, 0, 0, 0, 0]);
    const store = await reopened();
    expect(await store.readStream('warm-up')).toHaveLength(6);
    await store.close();
  });

  it('waits, instead of failing with "database is locked", while another process writes to a new store file', async () => {
    const { spawn } = await import('node:child_process');
    const script = path.resolve(import.meta.dirname, '../support/hold-write.ts');
    const holder = spawn(process.execPath, [script, file, '300'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const store = openSqliteEventStore({ file });
    await store.appendToStream('after-setup', [event()]);
    expect(await store.readStream('after-setup')).toHaveLength(1);
    await store.close();
    await exited;
  });
});
