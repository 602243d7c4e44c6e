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
import { givenPosition } from './positions.ts';
import { type FoldedAggregate, foldedReplay, type Replaying } from './folded-replay.ts';
import { type PayForReads, readMeter } from './replay-cost.ts';

/** An order as it was right after a change (placed, completed, cancelled), and that change's store position. */
export type OrderChange = { readonly order: VersionedOrder; readonly position: bigint };

/** Order changes resumed after a store position: what came before now, then live ones (see pet-changes.ts). */
export type ResumedOrderChanges = {
  readonly replayed: AsyncIterable<OrderChange>;
  /** Stops the live changes, and the replay: it reads no further, and ends. */
  readonly unsubscribe: () => void;
};

/** The orders a caller may see (their own; every one for an admin key) as they change: the orderChanged subscription's source. */
export function orderChangeQueries(deps: {
  readonly store: EventStore;
  readonly orders: OrderReadModel;
  readonly progress: ReadModelProgress;
}) {
  const { store, orders, progress } = deps;
  /** Calls `listener` with every change to an order the caller may see from now on, in store order. */
  const onOrderChange = (context: RequestContext, listener: (change: OrderChange) => void) =>
    orders.onChange((order, position) => {
      if (mayAccessOrder(order, context)) listener({ order, position });
    });
  return {
    onOrderChange,
    /**
     * The changes after `after` (checked before it resolves), then every later one, as
     * `resumePetChanges` does for pets: `listener` hears the live ones from the call of the
     * function returned, and `replayed` yields, from the store, those up to where the read model
     * stood then, each paid for with `pay` (see replay-cost.ts). Together: no gap and no repeat.
     */
    async resumeOrderChanges(
      context: RequestContext,
      after: string,
      pay?: PayForReads,
    ): Promise<(listener: (change: OrderChange) => void) => ResumedOrderChanges> {
      const from = await givenPosition(store, after, 'after');
      return (listener) => {
        // Both in one synchronous step: every change past `upTo` reaches the listener, none before.
        const upTo = progress.checkpoint;
        const off = onOrderChange(context, (change) => {
          if (change.position > from) listener(change);
        });
        // As for pets: a payment settles once its stream has ended, and the replay must then read
        // no further, or it would read on, unpaid, to the next order the caller may see.
        const stopped = new AbortController();
        const unsubscribe = () => {
          stopped.abort();
          off();
        };
        const replaying = { store, context, meter: readMeter(pay), stopped: stopped.signal };
        return { replayed: replay(replaying, { after: from, upTo }), unsubscribe };
      };
    },
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
  replaying: Replaying & { readonly context: RequestContext },
  range: { readonly after: bigint; readonly upTo: bigint | undefined },
): AsyncGenerator<OrderChange> {
  for await (const { event, version, state } of foldedReplay(replaying, ORDERS, range)) {
    if (state !== undefined && mayAccessOrder(state, replaying.context))
      yield { order: { ...state, version }, position: event.position };
  }
}
