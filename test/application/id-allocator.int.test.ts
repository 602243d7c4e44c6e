import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/context.ts';
import { IdAllocator } from '../../src/application/id-allocator.ts';
import { PET_IDS } from '../../src/domain/id-blocks.ts';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { makeTempDir } from '../support/temp-dir.ts';

let temp: ReturnType<typeof makeTempDir>;
let stores: EventStore[];

beforeEach(() => {
  temp = makeTempDir();
  stores = [];
});
afterEach(async () => {
  await Promise.all(stores.map((s) => s.close()));
  temp.remove();
});

/** A connection of its own to the shared file: as another API process would have. */
function openConnection(): EventStore {
  const store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  stores.push(store);
  return store;
}

async function take(allocator: IdAllocator, count: number): Promise<number[]> {
  return Promise.all(Array.from({ length: count }, () => allocator.nextId()));
}

describe('IdAllocator', () => {
  it('hands out ids from 1 upwards', async () => {
    expect(await take(new IdAllocator(openConnection(), PET_IDS, 10, systemClock), 3)).toEqual([1, 2, 3]);
  });

  it('never reuses an id after a restart, skipping the unused rest of the block', async () => {
    await take(new IdAllocator(openConnection(), PET_IDS, 10, systemClock), 3);
    const afterRestart = new IdAllocator(openConnection(), PET_IDS, 10, systemClock);
    expect(await afterRestart.nextId()).toBe(11);
  });

  it('gives processes sharing one store disjoint ids', async () => {
    const allocators = [1, 2, 3].map(() => new IdAllocator(openConnection(), PET_IDS, 5, systemClock));
    const ids = (await Promise.all(allocators.map((a) => take(a, 40)))).flat();
    expect(new Set(ids).size).toBe(120);
    expect(Math.min(...ids)).toBe(1);
  });
});
