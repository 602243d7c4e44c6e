import {
  evolveOrder,
  mayAccessOrder,
  type Order,
  type OrderEvent,
  orderStreamName,
  type VersionedOrder,
} from '../../domain/orders.ts';
import { petStreamName, type PetStatusChanged } from '../../domain/pets.ts';
import { type Clock, clockAt, type RequestContext } from '../../shared/context.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { newEventMetadata } from '../../shared/event-metadata.ts';
import type { EventStore, ExpectedRevision, StreamAppend } from '../ports/event-store.ts';
import type { OrderReadModel, PetReadModel } from '../ports/read-models.ts';
import type { Turns } from '../turns.ts';

/**
 * Orders change two aggregates at once: every order decision appends its order's event and its
 * pet's status change in one atomic append to both streams, each with the revision the decision
 * was made on as the expected one. A crash leaves both or neither, and the store decides between
 * concurrent decisions on either stream.
 */

export type OrderStreamDependencies = {
  readonly store: EventStore;
  readonly orders: OrderReadModel;
  readonly pets: PetReadModel;
  readonly clock: Clock;
  /** An order's change to its pet takes the pet's turn, as the pet's own changes do (see turns.ts). */
  readonly petTurns: Turns<number>;
};

/** An order and the revision of its stream it reflects. */
export type LoadedOrder = { readonly order: Order | undefined; readonly version: number | undefined };

/** The order as this process's read model has it, or as its stream has it now (`fromStore`). */
export async function loadOrder(
  deps: OrderStreamDependencies,
  id: number,
  fromStore: boolean,
): Promise<LoadedOrder> {
  if (!fromStore) {
    const known = deps.orders.getOrder(id);
    if (known !== undefined) return { order: known, version: known.version };
  }
  const events = await deps.store.readStream(orderStreamName(id));
  const order = events.reduce<Order | undefined>(
    (state, event) => evolveOrder(state, event as unknown as OrderEvent),
    undefined,
  );
  const last = events.at(-1);
  return { order, version: last === undefined ? undefined : Number(last.revision) };
}

/** The order, unless the caller may not see it: then, as for an unknown id, a 404. */
export function visibleOrder(
  order: Order | undefined,
  id: number,
  context: RequestContext,
): Order | undefined {
  if (order !== undefined && !mayAccessOrder(order, context)) return undefined;
  return order;
}

export function orderNotFound(id: number): NotFoundError {
  return new NotFoundError(`No order has the id ${id}.`);
}

/**
 * Appends an order's event and its pet's change atomically, each stream at the revision given, both
 * at the time the decision was made (the time its data records); resolves the order after it, once
 * this process's read models include both.
 */
export async function appendOrderDecision(
  deps: OrderStreamDependencies,
  context: RequestContext,
  decision: {
    readonly order: OrderEvent;
    readonly orderRevision: ExpectedRevision;
    readonly pet: PetStatusChanged;
    readonly petRevision: ExpectedRevision;
    readonly decidedAt: Date;
  },
  before: Order | undefined,
  /** Appends that must land with the decision or not at all (an idempotency key's claim). */
  alongside: readonly StreamAppend[] = [],
): Promise<{ readonly order: VersionedOrder; readonly position: bigint }> {
  const metadata = () => newEventMetadata(clockAt(decision.decidedAt), context);
  const result = await deps.store.appendToStreams([
    {
      streamName: orderStreamName(decision.order.data.orderId),
      events: [{ ...decision.order, metadata: metadata() }],
      expectedRevision: decision.orderRevision,
    },
    {
      streamName: petStreamName(decision.pet.data.id),
      events: [{ ...decision.pet, metadata: metadata() }],
      expectedRevision: decision.petRevision,
    },
    ...alongside,
  ]);
  await deps.orders.waitFor(result.position);
  const order = evolveOrder(before, decision.order)!;
  return { order: { ...order, version: Number(result.nextExpectedRevisions[0]) }, position: result.position };
}
