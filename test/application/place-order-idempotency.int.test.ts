import { afterEach, beforeEach, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { idempotencyStreamName, requestHash } from '../../src/domain/idempotency.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * An Idempotency-Key on an order is claimed in the same atomic append that places the order: a
 * placement that is refused claims nothing, and concurrent retries all answer with the one order.
 */

let t: TestApp;
const context = { correlationId: 'test', apiKeyId: 'key-1' };

beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

async function availablePetId(): Promise<number> {
  return (await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context)).pet.id;
}

it('claims nothing when the order is refused: the same request places an order once the pet is free', async () => {
  const petId = await availablePetId();
  const first = await t.application.placeOrder({ petId }, context);
  await expect(t.application.placeOrder({ petId }, context, { idempotencyKey: 'k-1' })).rejects.toMatchObject(
    {
      code: 'pet_not_available',
    },
  );
  await t.application.cancelOrder(first.order.id, context);
  const retry = await t.application.placeOrder({ petId }, context, { idempotencyKey: 'k-1' });
  expect([retry.replayed, retry.order.status, retry.order.id > first.order.id]).toEqual([
    false,
    'placed',
    true,
  ]);
});

it('lets a key whose placement was refused serve another request: nothing was created with it', async () => {
  await expect(
    t.application.placeOrder({ petId: 424242 }, context, { idempotencyKey: 'k-2' }),
  ).rejects.toMatchObject({ code: 'not_found' });
  const petId = await availablePetId();
  const placed = await t.application.placeOrder({ petId }, context, { idempotencyKey: 'k-2' });
  expect([placed.replayed, placed.order.petId]).toEqual([false, petId]);
});

it('answers ten concurrent requests with one key and one body with one order: placed once, replayed nine times', async () => {
  const petId = await availablePetId();
  const answers = await Promise.allSettled(
    Array.from({ length: 10 }, () => t.application.placeOrder({ petId }, context, { idempotencyKey: 'k-3' })),
  );
  const placed = answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : answer.reason));
  expect(new Set(placed.map((answer) => answer.order?.id)).size).toBe(1);
  expect(placed.filter((answer) => answer.replayed === false)).toHaveLength(1);
  expect(placed.filter((answer) => answer.replayed === true)).toHaveLength(9);
});

it('answers a placement without an Idempotency-Key as placed by it, not as a replay', async () => {
  const placed = await t.application.placeOrder({ petId: await availablePetId() }, context);
  expect(placed.replayed).toBe(false);
});

it('refuses a key that placed an order for an order of another pet: 422 idempotency_key_reused', async () => {
  await t.application.placeOrder({ petId: await availablePetId() }, context, { idempotencyKey: 'k-3' });
  const otherPetId = await availablePetId();
  await expect(
    t.application.placeOrder({ petId: otherPetId }, context, { idempotencyKey: 'k-3' }),
  ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
});

it('places the order a claim of an earlier release promised, when that release died between claiming and placing', async () => {
  const petId = await availablePetId();
  await t.store.appendToStream(idempotencyStreamName('key-1', 'k-old'), [
    {
      type: 'IdempotencyKeyClaimed',
      data: {
        orderId: 424242,
        requestHash: requestHash({ operation: 'placeOrder', petId }),
        expiresAt: '2099-01-01T00:00:00.000Z',
      },
      metadata: {
        eventId: randomUUID(),
        occurredAt: '2026-01-01T00:00:00.000Z',
        correlationId: 'c',
        schemaVersion: 1,
      },
    },
  ]);
  const retry = await t.application.placeOrder({ petId }, context, { idempotencyKey: 'k-old' });
  expect([retry.replayed, retry.order.id, retry.order.status, t.application.getPet(petId)?.status]).toEqual([
    true,
    424242,
    'placed',
    'pending',
  ]);
});
