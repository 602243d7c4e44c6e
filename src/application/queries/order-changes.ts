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
import { type PayForReads, type ReadMeter, readMeter } from './replay-cost.ts';

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

/** How many orders a replay keeps folded, the latest it met (see PETS_FOLDED in pet-changes.ts). */
const ORDERS_FOLDED = 1000;

type Replaying = {
  readonly store: EventStore;
  readonly context: RequestContext;
  readonly meter: ReadMeter;
  readonly stopped: AbortSignal;
};

async function* replay(
  replaying: Replaying,
  range: { readonly after: bigint; readonly upTo: bigint | undefined },
): AsyncGenerator<OrderChange> {
  const { store, context, meter, stopped } = replaying;
  const { after, upTo } = range;
  if (upTo === undefined || after >= upTo) return;
  const folded = new Map<number, { readonly version: number; readonly order: Order | undefined }>();
  for await (const event of store.readAll({ after })) {
    if (event.position > upTo || stopped.aborted) return;
    const paid = meter(1);
    if (paid !== undefined) await paid;
    if (stopped.aborted) return;
    if (!ORDER_EVENT_TYPES.has(event.type)) continue;
    const id = event.data.orderId as number;
    const version = Number(event.revision);
    const before = folded.get(id);
    const order =
      event.type === 'OrderPlaced' || before?.version === version - 1
        ? evolveOrder(before?.order, event as unknown as OrderEvent)
        : await foldedFromStream(store, id, version, meter);
    if (stopped.aborted) return;
    folded.delete(id);
    folded.set(id, { version, order });
    if (folded.size > ORDERS_FOLDED) folded.delete(folded.keys().next().value!);
    if (order !== undefined && mayAccessOrder(order, context))
      yield { order: { ...order, version }, position: event.position };
  }
}

/** The order as it was at `version`, folded from its stream: those reads are paid for too. */
async function foldedFromStream(
  store: EventStore,
  id: number,
  version: number,
  meter: ReadMeter,
): Promise<Order | undefined> {
  const history = await store.readStream(orderStreamName(id), { maxCount: version + 1 });
  await meter(history.length);
  return history.reduce<Order | undefined>(
    (order, e) => evolveOrder(order, e as unknown as OrderEvent),
    undefined,
  );
}
