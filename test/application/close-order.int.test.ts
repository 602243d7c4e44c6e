import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Closing an order (completing or cancelling it) with `If-Match`/`expectedVersion`: a version other
 * than the order's current one is a 412, and the order stays as it was.
 */

let t: TestApp;
const context = { correlationId: 'test', apiKeyId: 'key-1' };

beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

it('refuses to cancel an order whose version is not the expected one: 412, and the order stays placed', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const { order } = await t.application.placeOrder({ petId: pet.id }, context);
  await expect(t.application.cancelOrder(order.id, context, { expectedVersions: [3] })).rejects.toMatchObject(
    {
      code: 'precondition_failed',
      message: expect.stringContaining(`Order ${order.id}`),
    },
  );
  expect(t.application.getOrder(order.id, context)?.status).toBe('placed');
});

it('answers 404 to closing an id no order has', async () => {
  await expect(t.application.completeOrder(424242, context)).rejects.toMatchObject({
    code: 'not_found',
    message: 'No order has the id 424242.',
  });
});

it('answers 404 to closing an id above 2^53−1, which no order is ever given', async () => {
  // it refuses at once, before any promise: the async function makes that a rejection
  await expect(async () => t.application.cancelOrder(2n ** 60n, context)).rejects.toMatchObject({
    code: 'not_found',
    message: `No order has the id ${2n ** 60n}.`,
  });
});

it('answers 404, not 412, to another key’s If-Match on an order: its version is not told either', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const { order } = await t.application.placeOrder({ petId: pet.id }, context);
  await expect(
    t.application.cancelOrder(
      order.id,
      { correlationId: 'test', apiKeyId: 'key-2' },
      { expectedVersions: [3] },
    ),
  ).rejects.toMatchObject({ code: 'not_found' });
});
