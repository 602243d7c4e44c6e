import { afterEach, beforeEach, expect, it } from 'vitest';
import { completeOrderCommand } from '../../src/application/commands/close-order.ts';
import { placeOrderCommand } from '../../src/application/commands/place-order.ts';
import { updatePetCommand } from '../../src/application/commands/update-pet.ts';
import {
  type EventStore,
  type StreamAppend,
  WrongExpectedRevisionError,
} from '../../src/application/ports/event-store.ts';
import type { OrderReadModel, PetReadModel } from '../../src/application/ports/read-models.ts';
import { Turns } from '../../src/application/turns.ts';
import { systemClock } from '../../src/shared/context.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { storeWith } from '../support/store-with.ts';

/**
 * Changes to one pet take turns in a process: its renames and its orders' decisions alike. Racing,
 * each would decide on the revision the change under way is about to replace and conflict with it,
 * and under a burst of changes an order could lose every one of its attempts (a 500).
 */

let t: TestApp;
const context = { correlationId: 'test', apiKeyId: 'key-1' };

beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

/** Read models that know nothing yet: every command decides on the streams. */
const pets = {
  getPet: () => undefined,
  removedVersion: () => undefined,
  heldBy: () => undefined,
  waitFor: () => Promise.resolve(),
} as Partial<PetReadModel> as PetReadModel;
const orders = {
  getOrder: () => undefined,
  waitFor: () => Promise.resolve(),
} as Partial<OrderReadModel> as OrderReadModel;

/**
 * The store, holding the first rename's append until `order` (a two-stream append) has been
 * appended, or for 200 ms: an order decided while the rename is under way conflicts with it.
 */
function storeHoldingARename(): { store: EventStore; conflicts: unknown[]; renameHeld: Promise<void> } {
  const conflicts: unknown[] = [];
  const orderAppended = Promise.withResolvers<void>();
  const renameHeld = Promise.withResolvers<void>();
  let held = false;
  const append = async (appends: readonly StreamAppend[]) => {
    if (!held && appends[0]!.events[0]!.type === 'PetRenamed') {
      held = true;
      renameHeld.resolve();
      await Promise.race([orderAppended.promise, new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    try {
      return await t.store.appendToStreams(appends);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) conflicts.push(error);
      throw error;
    } finally {
      if (appends.length === 2) orderAppended.resolve();
    }
  };
  const store = storeWith(t.store, {
    appendToStreams: append,
    appendToStream: async (streamName, events, options) => {
      const result = await append([
        { streamName, events, expectedRevision: options?.expectedRevision ?? 'any' },
      ]);
      return { nextExpectedRevision: result.nextExpectedRevisions[0]!, position: result.position };
    },
  });
  return { store, conflicts, renameHeld: renameHeld.promise };
}

it('decides an order for a pet after the rename of it under way: neither conflicts with the other', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const { store, conflicts, renameHeld } = storeHoldingARename();
  const petTurns = new Turns<number>();
  const deps = { store, pets, orders, clock: systemClock, petTurns };
  const renamed = updatePetCommand({ ...deps, readModel: pets })(pet.id, { name: 'Max' }, context);
  await renameHeld;
  const placeOrder = placeOrderCommand({
    ...deps,
    nextOrderId: () => Promise.resolve(1),
    idempotencyKeyTtlMs: 1,
  });
  const placed = await Promise.all([renamed, placeOrder({ petId: pet.id }, context)]);
  expect([placed[0].version, placed[1].order.petId, conflicts]).toEqual([1, pet.id, []]);
});

it('completes an order after the rename of its pet under way: neither conflicts with the other', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const { order } = await t.application.placeOrder({ petId: pet.id }, context);
  const { store, conflicts, renameHeld } = storeHoldingARename();
  const petTurns = new Turns<number>();
  const deps = { store, pets, orders, clock: systemClock, petTurns };
  const renamed = updatePetCommand({ ...deps, readModel: pets })(pet.id, { name: 'Max' }, context);
  await renameHeld;
  const done = await Promise.all([renamed, completeOrderCommand(deps)(order.id, context)]);
  expect([done[0].version, done[1].order.status, conflicts]).toEqual([2, 'completed', []]);
});
