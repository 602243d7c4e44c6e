import { KNOWN_EVENT_TYPES } from '../src/domain/event-types.ts';
import {
  ORDER_STATUSES,
  type OrderEvent,
  type OrderStatus,
  type VersionedOrder,
  evolveOrder,
  ORDER_EVENT_TYPES,
} from '../src/domain/orders.ts';
import { IdTable } from './id-table.ts';
import type { ProjectedEvent, Projection } from './projection.ts';
import { SortedIds } from './sorted-ids.ts';

/**
 * The orders read model: every order by id with the revision of its stream it reflects, and ids in
 * ascending order (the order they were placed in, per process), overall and per status, and the
 * same per API key that placed them, so that a key's own page is a binary search plus a slice.
 */
export type OrdersState = {
  readonly byId: IdTable<VersionedOrder>;
  readonly all: OrderIndex;
  /** By the id of the key that placed them ('' for orders placed without a key). */
  readonly byOwner: Map<string, OrderIndex>;
};

export type OrderIndex = { readonly ids: SortedIds; readonly byStatus: Record<OrderStatus, SortedIds> };

export const ordersProjection: Projection<OrdersState> = {
  name: 'orders',
  version: 1,
  knownEventTypes: KNOWN_EVENT_TYPES,
  initialState,
  evolve(state: OrdersState, event: ProjectedEvent): OrdersState {
    if (!ORDER_EVENT_TYPES.has(event.type)) return state;
    const id = event.data.orderId as number;
    const before = state.byId.get(id);
    if (before !== undefined && event.revision <= before.version) return state;
    const after = evolveOrder(before, event as unknown as OrderEvent);
    if (after === undefined) return state;
    put(state, { ...after, version: Number(event.revision) }, before);
    return state;
  },
  toSnapshot(state: OrdersState): Iterable<VersionedOrder> {
    // One part per order, in id order. Orders are replaced, never changed in place, and the table
    // copies a page it handed out before changing it: taking its pages copies no order on the
    // event loop, however many there are.
    return state.byId.frozenRecords();
  },
  fromSnapshot(parts: Iterable<unknown>): OrdersState {
    const state = initialState();
    for (const order of parts as Iterable<VersionedOrder>) put(state, order, undefined);
    return state;
  },
};

function initialState(): OrdersState {
  return { byId: new IdTable(), all: emptyIndex(), byOwner: new Map() };
}

function emptyIndex(): OrderIndex {
  return {
    ids: new SortedIds(),
    byStatus: Object.fromEntries(ORDER_STATUSES.map((status) => [status, new SortedIds()])) as Record<
      OrderStatus,
      SortedIds
    >,
  };
}

function put(state: OrdersState, order: VersionedOrder, before: VersionedOrder | undefined): void {
  state.byId.set(order.id, order);
  const owner = order.placedBy ?? '';
  let own = state.byOwner.get(owner);
  if (own === undefined) state.byOwner.set(owner, (own = emptyIndex()));
  for (const index of [state.all, own]) {
    if (before === undefined) index.ids.insert(order.id);
    else index.byStatus[before.status].remove(order.id);
    index.byStatus[order.status].insert(order.id);
  }
}

/** Orders in ascending id order after `after`, at most `limit`; `hasMore` tells whether a next page exists. */
export function pageOrders(
  state: OrdersState,
  query: {
    readonly owner?: string;
    readonly status?: OrderStatus;
    readonly after?: number;
    readonly limit: number;
  },
): { orders: VersionedOrder[]; hasMore: boolean } {
  const index = query.owner === undefined ? state.all : state.byOwner.get(query.owner);
  if (index === undefined) return { orders: [], hasMore: false };
  const ids = query.status === undefined ? index.ids : index.byStatus[query.status];
  const page = ids.page(query.after, query.limit);
  return { orders: page.ids.map((id) => state.byId.get(id)!), hasMore: page.hasMore };
}
