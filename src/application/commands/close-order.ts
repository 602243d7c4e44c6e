import {
  decideCancelOrder,
  decideCompleteOrder,
  orderStreamName,
  validateCancelReason,
  type VersionedOrder,
} from '../../domain/orders.ts';
import type { RequestContext } from '../../shared/context.ts';
import { isAppError, PreconditionFailedError } from '../../shared/errors.ts';
import { WrongExpectedRevisionError } from '../ports/event-store.ts';
import { validateResourceId } from '../resource-id.ts';
import { type ChangeOptions, fromReadModel, fromStream, unmetPrecondition } from './pet-stream.ts';
import {
  appendOrderDecision,
  loadOrder,
  orderNotFound,
  type OrderStreamDependencies,
  visibleOrder,
} from './order-stream.ts';
import { backOffAfterConflict } from './conflict-backoff.ts';

export type CloseOrderResult = { readonly order: VersionedOrder; readonly position: bigint };

const MAX_ATTEMPTS = 10;

/**
 * Completes a placed order (its pet is sold) or cancels it (its pet is available again): the order's
 * event and the pet's change in one atomic append. Only the key that placed it, or an admin, may;
 * to anyone else the order does not exist. `If-Match`/`expectedVersion` work as on pets.
 */
export function completeOrderCommand(deps: OrderStreamDependencies) {
  return (orderId: number | bigint, context: RequestContext, options: ChangeOptions = {}) =>
    closeOrder(deps, validateOrderId(orderId), context, options, (order, id, pet, now) =>
      decideCompleteOrder(order, id, pet, now),
    );
}

export function cancelOrderCommand(deps: OrderStreamDependencies) {
  return (
    orderId: number | bigint,
    context: RequestContext,
    options: ChangeOptions & { readonly reason?: string } = {},
  ) => {
    const reason = validateCancelReason(options.reason);
    return closeOrder(deps, validateOrderId(orderId), context, options, (order, id, pet, now) =>
      decideCancelOrder(order, id, pet, reason, now),
    );
  };
}

type Decide = (
  order: Parameters<typeof decideCompleteOrder>[0],
  id: number,
  pet: Parameters<typeof decideCompleteOrder>[2],
  now: Date,
) => ReturnType<typeof decideCompleteOrder> | ReturnType<typeof decideCancelOrder>;

/** In the turn of the order's pet (an order's pet never changes): to the pet, closing is a change. */
async function closeOrder(
  deps: OrderStreamDependencies,
  id: number,
  context: RequestContext,
  options: ChangeOptions,
  decide: Decide,
): Promise<CloseOrderResult> {
  const petId = (await loadOrder(deps, id, false)).order?.petId;
  const close = () => decideAndAppend(deps, id, context, options, decide);
  return petId === undefined ? close() : deps.petTurns.take(petId, close);
}

async function decideAndAppend(
  deps: OrderStreamDependencies,
  id: number,
  context: RequestContext,
  options: ChangeOptions,
  decide: Decide,
): Promise<CloseOrderResult> {
  const expected = options.expectedVersions;
  let fromStore = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { order, version } = await loadOrder(deps, id, fromStore);
    const visible = visibleOrder(order, id, context);
    const unmet = visible === undefined ? undefined : unmetPrecondition(`Order ${id}`, options, version!);
    if ((visible === undefined || unmet !== undefined) && !fromStore) {
      fromStore = true; // this process's read model may be behind another process's write
      continue;
    }
    if (visible === undefined) throw orderNotFound(id);
    if (unmet !== undefined) throw unmet;
    const pet = fromStore
      ? await fromStream(deps, visible.petId)
      : fromReadModel({ readModel: deps.pets }, visible.petId);
    let decision: ReturnType<Decide>;
    const decidedAt = deps.clock.now();
    try {
      decision = decide(visible, id, pet.state, decidedAt);
    } catch (refusal) {
      // The order's and the pet's read models may be at different positions: decide on the streams.
      // There a refusal stands; an order placed whose pet it does not hold (not an AppError) was
      // closed by another process between the two reads, and is read again.
      if (fromStore && (isAppError(refusal) || attempt === MAX_ATTEMPTS - 1)) throw refusal;
      fromStore = true;
      continue;
    }
    try {
      return await appendOrderDecision(
        deps,
        context,
        {
          order: decision.order,
          orderRevision: BigInt(version!),
          pet: decision.pet,
          petRevision: BigInt(pet.version!),
          decidedAt,
        },
        visible,
      );
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (expected !== undefined && error.streamName === orderStreamName(id)) {
        throw new PreconditionFailedError(`Order ${id}`, Number(error.actual), expected);
      }
      fromStore = true; // the order or its pet changed meanwhile: decide again on them as they are
      await backOffAfterConflict(attempt);
    }
  }
  throw new Error(`Order ${id} kept changing under ${MAX_ATTEMPTS} attempts to close it.`);
}

/** An order id as a client may send it (see `validateResourceId`). */
export function validateOrderId(id: number | bigint): number {
  return validateResourceId(id, 'orderId', 'order');
}
