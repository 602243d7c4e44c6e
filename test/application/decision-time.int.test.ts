import { afterEach, beforeEach, expect, it } from 'vitest';
import { issueApiKey } from '../../src/application/commands/api-keys.ts';
import { idempotencyStreamName } from '../../src/domain/idempotency.ts';
import type { Clock } from '../../src/shared/context.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * A decision is made at one instant: the events it appends together (an order's and its pet's, a
 * patch's several changes) carry that time, and so do the timestamps of their data, however the
 * clock moves while they are written. A clock that moves a millisecond each time it is read shows
 * any second reading.
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

it('records a patch that makes several changes at one time: each of its events', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  await t.application.updatePet(pet.id, { name: 'Max', status: 'pending' }, context);
  const events = await t.store.readStream(`pet-${pet.id}`);
  expect(events.slice(1).map((event) => [event.type, event.metadata.occurredAt])).toEqual([
    ['PetRenamed', events[1]!.metadata.occurredAt],
    ['PetStatusChanged', events[1]!.metadata.occurredAt],
  ]);
});

it('records a key’s issue at one time: issuedAt and the ApiKeyIssued event', async () => {
  const { key } = await issueApiKey(
    { store: t.store, clock: t.service.auth.clock },
    { plan: 'free' },
    context,
  );
  const [issued] = await t.store.readStream(`apikey-${key.keyId}`);
  expect(issued!.metadata.occurredAt).toBe(key.issuedAt);
});

it('records an idempotency key’s claim at one time: it expires a day after its event', async () => {
  await t.application.createPet({ name: 'Rex', categoryId: 1 }, context, { idempotencyKey: 'k-1' });
  const [claimed] = await t.store.readStream(idempotencyStreamName('key-1', 'k-1'));
  const expiresAt = (claimed!.data as { expiresAt: string }).expiresAt;
  expect(Date.parse(expiresAt) - Date.parse(claimed!.metadata.occurredAt)).toBe(24 * 3600_000);
});

it('records a placement with an idempotency key at one time: its claim too, which lands with the order', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const { order } = await t.application.placeOrder({ petId: pet.id }, context, { idempotencyKey: 'k-2' });
  const [claimed] = await t.store.readStream(idempotencyStreamName('key-1', 'k-2'));
  expect([claimed!.metadata.occurredAt, (claimed!.data as { expiresAt: string }).expiresAt]).toEqual([
    order.placedAt,
    new Date(Date.parse(order.placedAt) + 24 * 3600_000).toISOString(),
  ]);
});
