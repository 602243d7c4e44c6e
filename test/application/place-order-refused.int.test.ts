import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * A refused placement (no such pet, a removed pet, a pet not available) records nothing: no order,
 * no reservation of order ids, and no order id taken, so order ids have no gap an auditor cannot
 * account for from the events.
 */

let t: TestApp;
const context = { correlationId: 'test', apiKeyId: 'key-1' };

beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

it('appends nothing when a placement is refused, not even a reservation of order ids', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'sold' }, context);
  const head = await t.store.headPosition();
  await expect(t.application.placeOrder({ petId: 424242 }, context)).rejects.toMatchObject({
    code: 'not_found',
  });
  await expect(t.application.placeOrder({ petId: pet.id }, context)).rejects.toMatchObject({
    code: 'pet_not_available',
  });
  expect(await t.store.headPosition()).toBe(head);
});

it('gives the first order placed after refused placements the first order id', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  await expect(t.application.placeOrder({ petId: 424242 }, context)).rejects.toMatchObject({
    code: 'not_found',
  });
  const placed = await t.application.placeOrder({ petId: pet.id }, context);
  expect(placed.order.id).toBe(1);
});

it('takes no order id for a placement with an Idempotency-Key that is refused', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  await expect(
    t.application.placeOrder({ petId: 424242 }, context, { idempotencyKey: 'k-1' }),
  ).rejects.toMatchObject({ code: 'not_found' });
  const placed = await t.application.placeOrder({ petId: pet.id }, context, { idempotencyKey: 'k-2' });
  expect(placed.order.id).toBe(1);
});
