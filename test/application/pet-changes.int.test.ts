import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PetChange, PetReadModel } from '../../src/application/ports/read-models.ts';
import { petChangeQueries } from '../../src/application/queries/pet-changes.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { appendNoise } from '../support/seed-store.ts';

/**
 * A subscription resumed on a process whose read model is behind the position the client sends
 * (a position another process gave, `--workers`): the read model applies the events up to it only
 * after the subscription starts, and the client has had those already.
 */

let t: TestApp;
const context = { correlationId: 'test' };

beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

/** A pet read model that applies changes on cue: the subscription reads nothing else of it. */
function petsApplyingOnCue(): { pets: PetReadModel; apply(change: PetChange): void } {
  const listeners = new Set<(change: PetChange) => void>();
  const onChange = (listener: (change: PetChange) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  const pets = { onChange } as Pick<PetReadModel, 'onChange'> as PetReadModel;
  return { pets, apply: (change) => listeners.forEach((listener) => listener(change)) };
}

it('delivers no change at or before the resume position that the read model applies after it started', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1 }, context);
  const created = (await t.store.headPosition())!;
  const renamed = await t.application.updatePet(pet.id, { name: 'Max' }, context);
  const { pets, apply } = petsApplyingOnCue();
  const { resumePetChanges } = petChangeQueries({
    store: t.store,
    pets,
    progress: { checkpoint: created, waitFor: () => Promise.resolve() },
  });
  const delivered: PetChange[] = [];
  const start = await resumePetChanges(String(renamed.position));
  const { replayed, unsubscribe } = start((change) => delivered.push(change));
  for await (const change of replayed) delivered.push(change);
  apply({ type: 'updated', pet: { ...pet, name: 'Max', version: 1 }, position: renamed.position! });
  apply({ type: 'removed', id: pet.id, version: 2, position: renamed.position! + 1n });
  unsubscribe();
  expect(delivered).toEqual([{ type: 'removed', id: pet.id, version: 2, position: renamed.position! + 1n }]);
});

it('folds each change of a pet from the one before: a replay of 300 renames reads the pet’s stream once', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1 }, context);
  const created = (await t.store.headPosition())!;
  for (let n = 1; n <= 300; n += 1) await t.application.updatePet(pet.id, { name: `Rex ${n}` }, context);
  const readStream = t.store.readStream.bind(t.store);
  let read = 0;
  t.store.readStream = async (...args) => {
    const found = await readStream(...args);
    read += found.length;
    return found;
  };
  const { resumePetChanges } = petChangeQueries({
    store: t.store,
    pets: petsApplyingOnCue().pets,
    progress: { checkpoint: (await t.store.headPosition())!, waitFor: () => Promise.resolve() },
  });
  const changes: PetChange[] = [];
  const { replayed, unsubscribe } = (await resumePetChanges(String(created)))(() => {});
  for await (const change of replayed) changes.push(change);
  unsubscribe();
  expect(changes.map((change) => change.type === 'updated' && [change.pet.name, change.pet.version])).toEqual(
    Array.from({ length: 300 }, (_, n) => [`Rex ${n + 1}`, n + 1]),
  );
  expect(read).toBe(2); // the pet as created and its first rename, folded once
});

function metadata() {
  return {
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'test',
    schemaVersion: 1,
  };
}

it('reads no further once stopped while it waits to pay: the ended stream is not read on for free', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1 }, context);
  const created = (await t.store.headPosition())!;
  await appendNoise(t.store, 25_000);
  await t.application.updatePet(pet.id, { name: 'Max' }, context);
  const { resumePetChanges } = petChangeQueries({
    store: t.store,
    pets: petsApplyingOnCue().pets,
    progress: { checkpoint: (await t.store.headPosition())!, waitFor: () => Promise.resolve() },
  });
  const paid: number[] = [];
  let stop = () => {};
  // As the HTTP side's payment does when its stream ends (the client gone, the server closing):
  // it stops waiting and settles.
  const pay = async (requests: number) => {
    paid.push(requests);
    stop();
  };
  const { replayed, unsubscribe } = (await resumePetChanges(String(created), pay))(() => {});
  stop = unsubscribe;
  const changes: PetChange[] = [];
  for await (const change of replayed) changes.push(change);
  expect(changes).toEqual([]);
  expect(paid).toEqual([1]);
});

it('pays for a pet’s stream before it reads it to fold the pet', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1 }, context);
  const renames = Array.from({ length: 12_000 }, (_, n) => ({
    type: 'PetRenamed',
    data: { id: pet.id, name: `Rex ${n + 1}` },
    metadata: metadata(),
  }));
  await t.store.appendToStream(`pet-${pet.id}`, renames);
  const head = (await t.store.headPosition())!;
  const steps: string[] = [];
  const readStream = t.store.readStream.bind(t.store);
  t.store.readStream = async (...args) => {
    const found = await readStream(...args);
    steps.push(`read ${found.length}`);
    return found;
  };
  const { resumePetChanges } = petChangeQueries({
    store: t.store,
    pets: petsApplyingOnCue().pets,
    progress: { checkpoint: head, waitFor: () => Promise.resolve() },
  });
  const pay = async (requests: number) => void steps.push(`pay ${requests}`);
  const { replayed, unsubscribe } = (await resumePetChanges(String(head - 1n), pay))(() => {});
  const changes: PetChange[] = [];
  for await (const change of replayed) changes.push(change);
  unsubscribe();
  expect(changes.map((change) => change.type === 'updated' && [change.pet.name, change.pet.version])).toEqual(
    [['Rex 12000', 12_000]],
  );
  // The rename read from the store (1) and the pet's 12,001 events: 12,002, one request past the first 10,000.
  expect(steps).toEqual(['pay 1', 'read 12001']);
});
