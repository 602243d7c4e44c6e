import {
  evolveOrder,
  mayAccessOrder,
  ORDER_EVENT_TYPES,
  type Order,
  type OrderEvent,
  orderStreamName,
  type VersionedOrder,
} from '../../domain/orders.ts';
import type { RequestContext } from '../../shared/context.ts';
import type { EventStore } from '../ports/event-store.ts';
import type { OrderReadModel, ReadModelProgress } from '../ports/read-models.ts';
import type { SentStart } from './positions.ts';
import type { PayForReads } from './replay-cost.ts';
import {
  type FoldedAggregate,
  foldedReplay,
  type Range,
  type Replaying,
  resumeChanges,
  type ResumedChanges,
} from './resumed-changes.ts';

/** An order as it was right after a change (placed, completed, cancelled), and that change's store position. */
export type OrderChange = { readonly order: VersionedOrder; readonly position: bigint };

/** The orders a caller may see (their own; every one for an admin key) as they change: the source of GraphQL's orderChanged and REST's GET /v1/store/orders/changes. */
export function orderChangeQueries(deps: {
  readonly store: EventStore;
  readonly orders: OrderReadModel;
  readonly progress: ReadModelProgress;
}) {
  const { orders } = deps;
  /** Calls `listener` with every change to an order the caller may see from now on, in store order. */
  const onOrderChange = (context: RequestContext, listener: (change: OrderChange) => void) =>
    orders.onChange((order, position) => {
      if (mayAccessOrder(order, context)) listener({ order, position });
    });
  return {
    onOrderChange,
    /**
     * The changes after `after`, then every later one, as `resumePetChanges` does for pets (see
     * `resumeChanges`): each order as it was right after the change.
     */
    resumeOrderChanges: (
      context: RequestContext,
      after: string | SentStart,
      pay?: PayForReads,
    ): Promise<(listener: (change: OrderChange) => void) => ResumedChanges<OrderChange>> =>
      resumeChanges(deps, after, pay, {
        live: (listener) => onOrderChange(context, listener),
        replay: (replaying, range) => replay(replaying, context, range),
      }),
  };
}

/** Orders, as a replay folds them. */
const ORDERS: FoldedAggregate<Order> = {
  eventTypes: ORDER_EVENT_TYPES,
  standsAlone: (event) => event.type === 'OrderPlaced',
  idOf: (event) => event.data.orderId as number,
  streamName: orderStreamName,
  evolve: (order, event) => evolveOrder(order, event as unknown as OrderEvent),
};

async function* replay(
  replaying: Replaying,
  context: RequestContext,
  range: Range,
): AsyncGenerator<OrderChange> {
  for await (const { event, version, state } of foldedReplay(replaying, ORDERS, range)) {
    if (state !== undefined && mayAccessOrder(state, context))
      yield { order: { ...state, version }, position: event.position };
  }
}
