import { afterEach, beforeEach, expect, it } from 'vitest';
import type { OrderReadModel } from '../../src/application/ports/read-models.ts';
import { type OrderChange, orderChangeQueries } from '../../src/application/queries/order-changes.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { EVENTS_PER_TURN } from '../../src/shared/next-turn.ts';
import { appendNoise } from '../support/seed-store.ts';
import { storeWith } from '../support/store-with.ts';

/** orderChanged(after:)'s replay: what it reads of the store, and what it pays for. */

let t: TestApp;
const context = { correlationId: 'test', apiKeyId: 'key-1' };

beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

/** An order read model with no live changes: the replay reads nothing else of it. */
const quietOrders = { onChange: () => () => {} } as Pick<OrderReadModel, 'onChange'> as OrderReadModel;

it('reads no further once stopped while it waits to pay: the ended stream is not read on for free', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const from = (await t.store.headPosition())!;
  await appendNoise(t.store, 25_000);
  await t.application.placeOrder({ petId: pet.id }, context);
  const { resumeOrderChanges } = orderChangeQueries({
    store: t.store,
    orders: quietOrders,
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
  const { replayed, unsubscribe } = (await resumeOrderChanges(context, String(from), pay))(() => {});
  stop = unsubscribe;
  const changes: OrderChange[] = [];
  for await (const change of replayed) changes.push(change);
  expect(changes).toEqual([]);
  expect(paid).toEqual([1]);
});

it('lets the event loop take its other work while it passes over events that are not orders', async () => {
  const { pet } = await t.application.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, context);
  const from = (await t.store.headPosition())!;
  await appendNoise(t.store, 20_000);
  await t.application.placeOrder({ petId: pet.id }, context);
  let read = 0;
  const store = storeWith(t.store, {
    readAll: async function* (options) {
      for await (const event of t.store.readAll(options)) {
        read += 1;
        yield event;
      }
    },
  });
  const { resumeOrderChanges } = orderChangeQueries({
    store,
    orders: quietOrders,
    progress: { checkpoint: (await t.store.headPosition())!, waitFor: () => Promise.resolve() },
  });
  const { replayed } = (await resumeOrderChanges(context, String(from)))(() => {});
  let readWhenOtherWorkRan: number | undefined;
  setImmediate(() => (readWhenOtherWorkRan = read));
  const changes: OrderChange[] = [];
  for await (const change of replayed) changes.push(change);
  expect(changes.map((change) => change.order.petId)).toEqual([pet.id]);
  expect(read).toBeGreaterThan(20_000);
  expect(readWhenOtherWorkRan).toBeLessThanOrEqual(EVENTS_PER_TURN);
});
