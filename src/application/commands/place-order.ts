import { requestHash } from '../../domain/idempotency.ts';
import {
  decidePlaceOrder,
  evolveOrder,
  type NewOrder,
  type OrderEvent,
  orderStreamName,
  refuseUnorderable,
  validateNewOrder,
  type VersionedOrder,
} from '../../domain/orders.ts';
import type { RequestContext } from '../../shared/context.ts';
import { createIdempotently, type IdempotencyDependencies } from '../idempotent.ts';
import { type StreamAppend, WrongExpectedRevisionError } from '../ports/event-store.ts';
import { appendOrderDecision, type OrderStreamDependencies } from './order-stream.ts';
import { fromReadModel, fromStream } from './pet-stream.ts';
import { backOffAfterConflict } from './conflict-backoff.ts';

export type PlaceOrderDependencies = OrderStreamDependencies &
  IdempotencyDependencies & { readonly nextOrderId: () => Promise<number> };

export type PlaceOrderResult = {
  readonly order: VersionedOrder;
  /** True when the order was placed by an earlier request with the same idempotency key. */
  readonly replayed: boolean;
  /** Store position of the append; undefined for a replay. */
  readonly position?: bigint;
};

const MAX_ATTEMPTS = 10;

/**
 * Places an order for an available pet: `OrderPlaced` on the order's stream and the pet's change to
 * pending on the pet's, in one atomic append. Of two clients ordering one pet at the same moment,
 * the store lets one append through; the other finds the pet pending: 409 pet_not_available.
 */
export function placeOrderCommand(deps: PlaceOrderDependencies) {
  return async function placeOrder(
    input: unknown,
    context: RequestContext,
    options: { readonly idempotencyKey?: string } = {},
  ): Promise<PlaceOrderResult> {
    const order = validateNewOrder(input);
    if (options.idempotencyKey === undefined) {
      return { ...(await place(deps, deps.nextOrderId, order, context)), replayed: false };
    }
    const { result, replayed } = await createIdempotently(deps, context, options.idempotencyKey, {
      field: 'orderId',
      requestHash: requestHash({ operation: 'placeOrder', ...order }),
      nextId: deps.nextOrderId,
      ensureCreated: (id) => ensurePlaced(deps, id, order, context),
      createWithClaim: (claimFor) => place(deps, deps.nextOrderId, order, context, claimFor),
    });
    return { ...result, replayed };
  };
}

/** Places the order in its pet's turn (see turns.ts). */
function place(
  ...args: Parameters<typeof decideAndAppend>
): Promise<{ order: VersionedOrder; position: bigint }> {
  const [deps, , order] = args;
  return deps.petTurns.take(order.petId, () => decideAndAppend(...args));
}

/**
 * The order's id is taken only once the pet is found available, so that a refused placement takes
 * none: it leaves no gap in the order ids and appends nothing, not even a reservation of ids. Only a
 * placement that loses a race for the pet (another process changed it after this one found it
 * available, so the append conflicts and the pet read again is refused) leaves its id unused.
 */
async function decideAndAppend(
  deps: PlaceOrderDependencies,
  nextOrderId: () => Promise<number>,
  order: NewOrder,
  context: RequestContext,
  claimFor?: (orderId: number, decidedAt: Date) => StreamAppend,
): Promise<{ order: VersionedOrder; position: bigint }> {
  let fromStore = false;
  let orderId: number | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const pet = fromStore
      ? await fromStream(deps, order.petId)
      : fromReadModel({ readModel: deps.pets }, order.petId);
    if (!fromStore && (pet.state?.kind !== 'live' || pet.state.pet.status !== 'available')) {
      fromStore = true; // before a 404 or 409, make sure this process's read model is not behind
      continue;
    }
    if (orderId === undefined) {
      refuseUnorderable(order.petId, pet.state);
      orderId = await nextOrderId();
    }
    const decidedAt = deps.clock.now();
    const decision = decidePlaceOrder(order, orderId, pet.state, context.apiKeyId, decidedAt);
    const claim = claimFor?.(orderId, decidedAt); // made at the placement's time: one decision
    try {
      return await appendOrderDecision(
        deps,
        context,
        {
          order: decision.order,
          orderRevision: 'no_stream',
          pet: decision.pet,
          petRevision: BigInt(pet.version!),
          decidedAt,
        },
        undefined,
        claim === undefined ? [] : [claim],
      );
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (error.streamName === claim?.streamName) throw error; // the key's claim decides, not this loop
      fromStore = true; // the pet changed meanwhile (another order came first): decide again
      await backOffAfterConflict(attempt);
    }
  }
  throw new Error(`Pet ${order.petId} kept changing under ${MAX_ATTEMPTS} attempts to order it.`);
}

/**
 * The order a claim promised, as it was placed. A claim is appended with its order, so the order
 * exists; a claim made by an earlier release, which claimed first and placed after, may name an
 * order its request never placed: it is placed now.
 */
async function ensurePlaced(
  deps: PlaceOrderDependencies,
  id: number,
  order: NewOrder,
  context: RequestContext,
): Promise<{ order: VersionedOrder; position?: bigint }> {
  const [placed] = await deps.store.readStream(orderStreamName(id), { maxCount: 1 });
  if (placed === undefined) return place(deps, () => Promise.resolve(id), order, context);
  // Another process may have placed it, and this read model not have it yet: answer once it does
  // (on the store's head: a stream read's position is only a lower bound).
  if (deps.orders.getOrder(id) === undefined) {
    const head = await deps.store.headPosition();
    if (head !== undefined) await deps.orders.waitFor(head);
  }
  return { order: { ...evolveOrder(undefined, placed as unknown as OrderEvent)!, version: 0 } };
}
