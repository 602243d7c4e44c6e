import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Clock } from '../../src/shared/context.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * An order's decision is made at one instant: its events (the order's and its pet's, appended
 * together) carry that time, and so do the order's own timestamps, however the clock moves while
 * they are written. A clock that moves a millisecond each time it is read shows any second reading.
 */

const START = Date.UTC(2030, 0, 15, 10, 0, 0);
let t: TestApp;
const context = { correlationId: 'test', apiKeyId: 'key-1' };

function tickingClock(startMs: number): Clock {
  let currentMs = startMs;
  return { now: () => new Date(currentMs++), nowMs: () => currentMs++ };
}

beforeEach(async () => {
  t = await startTestApp({ clock: tickingClock(START) });
});
afterEach(async () => {
  await t.close();
});

async function lastTime(stream: string): Promise<string> {
  const events = await t.store.readStream(stream);
  return events.at(-1)!.metadata.occurredAt;
}

it('records a placement at one time: placedAt, the OrderPlaced event and the pet’s change', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const { order } = await t.application.placeOrder({ petId: pet.id }, context);
  expect([await lastTime(`order-${order.id}`), await lastTime(`pet-${pet.id}`)]).toEqual([
    order.placedAt,
    order.placedAt,
  ]);
});

it('records a completion at one time: completedAt, the OrderCompleted event and the pet’s change', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const placed = await t.application.placeOrder({ petId: pet.id }, context);
  const { order } = await t.application.completeOrder(placed.order.id, context);
  expect([await lastTime(`order-${order.id}`), await lastTime(`pet-${pet.id}`)]).toEqual([
    order.completedAt,
    order.completedAt,
  ]);
});
