import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { petListProjection } from '../../projections/pet-list.ts';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import type { PetReadModel } from '../../src/application/ports/read-models.ts';
import type { Pet } from '../../src/domain/pets.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { petReadModel } from '../../src/read-models/pet-read-model.ts';
import { ProjectionGroup } from '../../src/read-models/runner.ts';
import { makeTempDir } from '../support/temp-dir.ts';

let temp: ReturnType<typeof makeTempDir>;
let store: EventStore;
let group: ProjectionGroup;
let pets: PetReadModel;

beforeEach(async () => {
  temp = makeTempDir();
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  group = new ProjectionGroup({ store, logger: pino({ level: 'silent' }) });
  pets = petReadModel(group.add(petListProjection), (position) => group.waitFor(position));
  await group.start();
});
afterEach(async () => {
  await group.stop();
  await store.close();
  temp.remove();
});

async function create(pet: Pet): Promise<void> {
  const metadata = {
    eventId: randomUUID(),
    occurredAt: '2026-11-23T12:00:00.000Z',
    correlationId: 'test',
    schemaVersion: 1,
  };
  const { position } = await store.appendToStream(`pet-${pet.id}`, [
    { type: 'PetCreated', data: pet, metadata },
  ]);
  await group.waitFor(position);
}

it('answers the same page with the same object while nothing has changed', async () => {
  await create({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
  await create({ id: 2, name: 'Tom', categoryId: 2, status: 'available' });
  const first = pets.page({ status: 'available', limit: 20 });
  expect(pets.page({ status: 'available', limit: 20 })).toBe(first);
  expect(first.pets.map((pet) => pet.id)).toEqual([1, 2]);
});

it('answers a page anew once a pet has been added', async () => {
  await create({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
  const before = pets.page({ limit: 20 });
  await create({ id: 2, name: 'Tom', categoryId: 2 });
  const after = pets.page({ limit: 20 });
  expect(after).not.toBe(before);
  expect(after.pets.map((pet) => pet.id)).toEqual([1, 2]);
});

it('keeps the answers of different queries apart', async () => {
  await create({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
  await create({ id: 2, name: 'Tom', categoryId: 2, status: 'sold' });
  expect(pets.page({ status: 'sold', limit: 20 }).pets.map((pet) => pet.id)).toEqual([2]);
  expect(pets.page({ status: 'available', limit: 20 }).pets.map((pet) => pet.id)).toEqual([1]);
  expect(pets.page({ limit: 1 })).toEqual({
    pets: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available', version: 0 }],
    hasMore: true,
  });
  expect(pets.page({ after: 1, limit: 1 }).pets.map((pet) => pet.id)).toEqual([2]);
});
