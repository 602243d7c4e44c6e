import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cancelOrderCommand, completeOrderCommand } from '../../src/application/commands/close-order.ts';
import { createPetCommand } from '../../src/application/commands/create-pet.ts';
import { placeOrderCommand } from '../../src/application/commands/place-order.ts';
import { updatePetCommand } from '../../src/application/commands/update-pet.ts';
import type { OrderReadModel, PetReadModel } from '../../src/application/ports/read-models.ts';
import type { VersionedOrder } from '../../src/domain/orders.ts';
import type { VersionedPet } from '../../src/domain/pets.ts';
import { systemClock } from '../../src/shared/context.ts';
import { PreconditionFailedError } from '../../src/shared/errors.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { storeWith } from '../support/store-with.ts';
import { Turns } from '../../src/application/turns.ts';

/**
 * Another process's write reaches this process's read models a moment later (`--workers`, or two
 * servers on one store). A command that decides on a read model that is behind must decide again
 * on the streams before it answers: these commands get read models frozen before such a write,
 * and the real store after it.
 */

let t: TestApp;
const context = { correlationId: 'test', apiKeyId: 'key-1' };

beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

const unused = () => {
  throw new Error('not used by these commands');
};

/** A pet read model that still has this pet as it was, held by `heldBy` if given. */
function petsBehind(pet: VersionedPet, heldBy?: number): PetReadModel {
  return {
    getPet: (id) => (id === pet.id ? pet : undefined),
    removedVersion: () => undefined,
    heldBy: (id) => (id === pet.id ? heldBy : undefined),
    countByStatus: unused,
    page: unused,
    onChange: () => () => {},
    waitFor: () => Promise.resolve(),
  };
}

/** An order read model that has this order as it is. */
function ordersWith(order: VersionedOrder): OrderReadModel {
  return {
    getOrder: (id) => (id === order.id ? order : undefined),
    page: unused,
    onChange: () => () => {},
    waitFor: () => Promise.resolve(),
  };
}

async function availablePet(): Promise<VersionedPet> {
  return (await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context)).pet;
}

describe('changing a pet on a read model that is behind', () => {
  it('answers 412 to an If-Match the read model still holds, for a patch it thinks changes nothing', async () => {
    const pet = await availablePet();
    await t.application.placeOrder({ petId: pet.id }, context); // the pet is at version 1 now
    const updatePet = updatePetCommand({
      store: t.store,
      readModel: petsBehind(pet),
      clock: systemClock,
      petTurns: new Turns(),
    });
    await expect(updatePet(pet.id, { name: 'Rex' }, context, { expectedVersions: [0] })).rejects.toThrow(
      PreconditionFailedError,
    );
  });

  it('refuses to make a held pet available, though the read model has it available and unheld', async () => {
    const pet = await availablePet();
    await t.application.placeOrder({ petId: pet.id }, context);
    const updatePet = updatePetCommand({
      store: t.store,
      readModel: petsBehind(pet),
      clock: systemClock,
      petTurns: new Turns(),
    });
    await expect(updatePet(pet.id, { status: 'available' }, context)).rejects.toMatchObject({
      code: 'pet_held_by_order',
    });
  });

  it('changes a pet the read model still has held by an order that was cancelled since', async () => {
    const pet = await availablePet();
    const { order } = await t.application.placeOrder({ petId: pet.id }, context);
    const held = t.application.getPet(pet.id);
    await t.application.cancelOrder(order.id, context);
    const updatePet = updatePetCommand({
      store: t.store,
      readModel: petsBehind(held, order.id),
      clock: systemClock,
      petTurns: new Turns(),
    });
    const { pet: after } = await updatePet(pet.id, { status: 'sold' }, context);
    expect([after?.status, after?.version]).toEqual(['sold', 3]);
  });
});

describe('placing an order on a read model that is behind', () => {
  it('places it for a pet the read model still has held by an order that was cancelled since', async () => {
    const pet = await availablePet();
    const { order } = await t.application.placeOrder({ petId: pet.id }, context);
    const held = t.application.getPet(pet.id);
    await t.application.cancelOrder(order.id, context);
    const placeOrder = placeOrderCommand({
      store: t.store,
      orders: ordersWith(order),
      pets: petsBehind(held, order.id),
      clock: systemClock,
      petTurns: new Turns(),
      nextOrderId: () => Promise.resolve(order.id + 1),
      idempotencyKeyTtlMs: 3600_000,
    });
    const placed = await placeOrder({ petId: pet.id }, context);
    expect([placed.order.id, placed.order.status]).toEqual([order.id + 1, 'placed']);
  });
});

describe('closing an order whose pet the read model has not seen held yet', () => {
  it.each([
    ['completes', completeOrderCommand, 'completed'],
    ['cancels', cancelOrderCommand, 'cancelled'],
  ] as const)('%s it on the streams instead of failing', async (_verb, command, status) => {
    const pet = await availablePet();
    const { order } = await t.application.placeOrder({ petId: pet.id }, context);
    const close = command({
      store: t.store,
      orders: ordersWith(order),
      pets: petsBehind(pet),
      clock: systemClock,
      petTurns: new Turns(),
    });
    const { order: closed } = await close(order.id, context);
    expect(closed.status).toBe(status);
  });

  it('still refuses a conflict that the streams confirm', async () => {
    const pet = await availablePet();
    const { order } = await t.application.placeOrder({ petId: pet.id }, context);
    const completed = (await t.application.completeOrder(order.id, context)).order;
    const close = cancelOrderCommand({
      store: t.store,
      orders: ordersWith(completed),
      pets: petsBehind(t.application.getPet(pet.id)),
      clock: systemClock,
      petTurns: new Turns(),
    });
    await expect(close(order.id, context)).rejects.toMatchObject({ code: 'invalid_order_transition' });
  });

  it('judges an If-Match on the streams when the read model has the order a version behind: 409, not 412', async () => {
    const pet = await availablePet();
    const { order } = await t.application.placeOrder({ petId: pet.id }, context);
    await t.application.completeOrder(order.id, context); // another process: the order is at version 1
    const close = cancelOrderCommand({
      store: t.store,
      orders: ordersWith(order),
      pets: petsBehind(t.application.getPet(pet.id)),
      clock: systemClock,
      petTurns: new Turns(),
    });
    await expect(close(order.id, context, { expectedVersions: [1] })).rejects.toMatchObject({
      code: 'invalid_order_transition',
    });
  });

  it('reads again when the order closes between its read and its pet’s: 409, not a 500', async () => {
    const pet = await availablePet();
    const { order } = await t.application.placeOrder({ petId: pet.id }, context);
    let closedMeanwhile = false;
    const store = storeWith(t.store, {
      readStream: async (name, options) => {
        if (name === `pet-${pet.id}` && !closedMeanwhile) {
          closedMeanwhile = true; // another process completes the order between the two reads
          await t.application.completeOrder(order.id, context);
        }
        return t.store.readStream(name, options);
      },
    });
    const close = cancelOrderCommand({
      store,
      orders: ordersWith(order),
      pets: petsBehind(pet),
      clock: systemClock,
      petTurns: new Turns(),
    });
    await expect(close(order.id, context)).rejects.toMatchObject({
      code: 'invalid_order_transition',
      message: `Order ${order.id} is completed: it cannot cancel any more.`,
    });
  });
});

describe('a retry with an Idempotency-Key of a creation another process made, on read models that are behind', () => {
  /** Read models that have not applied that process's write yet; they record what they were made to wait for. */
  function readModelsBehind() {
    const waitedFor: bigint[] = [];
    const waitFor = (position: bigint) => {
      waitedFor.push(position);
      return Promise.resolve();
    };
    const pets: PetReadModel = {
      getPet: () => undefined,
      removedVersion: () => undefined,
      heldBy: () => undefined,
      countByStatus: unused,
      page: unused,
      onChange: () => () => {},
      waitFor,
    };
    const orders: OrderReadModel = {
      getOrder: () => undefined,
      page: unused,
      onChange: () => () => {},
      waitFor,
    };
    return { pets, orders, waitedFor };
  }

  it('answers with the pet once this process’s read model has reached the store’s head', async () => {
    const body = { name: 'Rex', categoryId: 1 };
    const { pet } = await t.application.createPet(body, context, { idempotencyKey: 'k-pet' });
    const { pets, waitedFor } = readModelsBehind();
    const createPet = createPetCommand({
      store: t.store,
      nextPetId: unused,
      readModel: pets,
      clock: systemClock,
      idempotencyKeyTtlMs: 3600_000,
    });
    const retry = await createPet(body, context, { idempotencyKey: 'k-pet' });
    expect([retry.pet, waitedFor]).toEqual([pet, [await t.store.headPosition()]]);
  });

  it('answers with the order once this process’s read model has reached the store’s head', async () => {
    const pet = await availablePet();
    const { order } = await t.application.placeOrder({ petId: pet.id }, context, {
      idempotencyKey: 'k-order',
    });
    const { pets, orders, waitedFor } = readModelsBehind();
    const placeOrder = placeOrderCommand({
      store: t.store,
      orders,
      pets,
      clock: systemClock,
      petTurns: new Turns(),
      nextOrderId: unused,
      idempotencyKeyTtlMs: 3600_000,
    });
    const retry = await placeOrder({ petId: pet.id }, context, { idempotencyKey: 'k-order' });
    expect([retry.order, waitedFor]).toEqual([order, [await t.store.headPosition()]]);
  });
});
