import { describe, expect, it } from 'vitest';
import { ordersProjection, type OrdersState, pageOrders } from '../../projections/orders.ts';
import type { OrderEvent } from '../../src/domain/orders.ts';

/** The projection after these events, each at the revision given (its order stream's). */
function given(...events: [OrderEvent, number][]): OrdersState {
  return events.reduce(
    (state, [event, revision]) => ordersProjection.evolve(state, { ...event, revision: BigInt(revision) }),
    ordersProjection.initialState(),
  );
}
const placed = (orderId: number, petId: number, placedBy = 'key_shop'): [OrderEvent, number] => [
  { type: 'OrderPlaced', data: { orderId, petId, placedAt: '2026-11-23T09:00:00.000Z', placedBy } },
  0,
];
const cancelled = (orderId: number, petId: number): [OrderEvent, number] => [
  { type: 'OrderCancelled', data: { orderId, petId, cancelledAt: '2026-11-23T10:00:00.000Z' } },
  1,
];

function roundTrip(state: OrdersState): OrdersState {
  return ordersProjection.fromSnapshot(JSON.parse(JSON.stringify([...ordersProjection.toSnapshot(state)])));
}
const statuses = (state: OrdersState) =>
  pageOrders(state, { limit: 10 }).orders.map((order) => [order.id, order.status, order.version]);

describe('orders projection', () => {
  it('survives a snapshot round trip: orders in id order, with their statuses, versions and owners', () => {
    const state = given(placed(2, 20), placed(1, 10, 'key_other'), cancelled(2, 20));
    const restored = roundTrip(state);
    expect(statuses(restored)).toEqual([
      [1, 'placed', 0],
      [2, 'cancelled', 1],
    ]);
    expect(pageOrders(restored, { owner: 'key_other', limit: 10 }).orders.map((o) => o.id)).toEqual([1]);
    expect(pageOrders(restored, { status: 'cancelled', limit: 10 }).orders.map((o) => o.id)).toEqual([2]);
  });

  it('snapshots the orders as they were when asked, however many events are applied before the parts are made', () => {
    const state = given(placed(1, 10), placed(2, 20));
    const parts = ordersProjection.toSnapshot(state);
    ordersProjection.evolve(state, { ...cancelled(1, 10)[0], revision: 1n });
    ordersProjection.evolve(state, { ...placed(3, 30)[0], revision: 0n });
    const restored = ordersProjection.fromSnapshot(JSON.parse(JSON.stringify([...parts])));
    expect(statuses(restored)).toEqual([
      [1, 'placed', 0],
      [2, 'placed', 0],
    ]);
  });
});
