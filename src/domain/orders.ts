import { AppError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { validateFreeText } from './text.ts';
import { decideChangeStatus, livePet, type PetState, type PetStatusChanged } from './pets.ts';

/**
 * The order aggregate, pure. An order changes two aggregates at once: placing it makes its pet
 * pending (the order holds the pet), completing it sells the pet, cancelling it makes the pet
 * available again. Each decision returns both sides, which the application appends atomically.
 */

export const ORDER_STATUSES = ['placed', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Longest accepted note or cancellation reason, in Unicode code points. */
export const ORDER_NOTE_MAX_LENGTH = 500;

export type Order = {
  readonly id: number;
  readonly petId: number;
  readonly status: OrderStatus;
  readonly placedAt: string;
  /** The API key that placed it; absent when the CLI or the system did. */
  readonly placedBy?: string;
  readonly note?: string;
  readonly completedAt?: string;
  readonly cancelledAt?: string;
  readonly cancelReason?: string;
};

export type VersionedOrder = Order & { readonly version: number };
export type NewOrder = { readonly petId: number; readonly note?: string };

export type OrderPlaced = {
  readonly type: 'OrderPlaced';
  readonly data: {
    readonly orderId: number;
    readonly petId: number;
    readonly placedAt: string;
    readonly placedBy?: string;
    readonly note?: string;
  };
};
export type OrderCompleted = {
  readonly type: 'OrderCompleted';
  readonly data: { readonly orderId: number; readonly petId: number; readonly completedAt: string };
};
export type OrderCancelled = {
  readonly type: 'OrderCancelled';
  readonly data: {
    readonly orderId: number;
    readonly petId: number;
    readonly cancelledAt: string;
    readonly reason?: string;
  };
};
export type OrderEvent = OrderPlaced | OrderCompleted | OrderCancelled;
export const ORDER_EVENT_TYPES: ReadonlySet<string> = new Set<OrderEvent['type']>([
  'OrderPlaced',
  'OrderCompleted',
  'OrderCancelled',
]);

export const orderStreamName = (id: number): string => `order-${id}`;

/** Both sides of one order decision: the order's event and its pet's. */
export type OrderDecision<E extends OrderEvent> = { readonly order: E; readonly pet: PetStatusChanged };

export class PetNotAvailableError extends AppError {
  constructor(petId: number, status: string | undefined) {
    super(
      'pet_not_available',
      409,
      `Pet ${petId} is ${status ?? 'without a status'}, not available: it cannot be ordered.`,
    );
  }
}

export class InvalidOrderTransitionError extends AppError {
  constructor(orderId: number, status: OrderStatus, wanted: 'complete' | 'cancel') {
    super('invalid_order_transition', 409, `Order ${orderId} is ${status}: it cannot ${wanted} any more.`);
  }
}

const NEW_ORDER_FIELDS = new Set(['petId', 'note']);

/** The one validator for a new order: `petId` (a pet id), and an optional free-text `note`. */
export function validateNewOrder(input: unknown): NewOrder {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('The body must be a JSON object with petId.');
  }
  const record = input as Record<string, unknown>;
  for (const field of Object.keys(record)) {
    if (!NEW_ORDER_FIELDS.has(field)) {
      throw new ValidationError(`Field ${field} cannot be set; an order accepts petId and note.`, field);
    }
  }
  const { petId, note } = record;
  if (typeof petId !== 'number' || !Number.isSafeInteger(petId) || petId < 1) {
    const rule = `a pet id from 1 to ${Number.MAX_SAFE_INTEGER}`;
    throw new ValidationError(
      petId === undefined ? `petId is required: ${rule}.` : `petId must be ${rule}, as a number.`,
      'petId',
    );
  }
  if (note === undefined) return { petId };
  return { petId, note: validateFreeText(note, 'note', ORDER_NOTE_MAX_LENGTH) };
}

/** A cancellation's optional reason: free text by the rules of a note. */
export function validateCancelReason(reason: unknown): string | undefined {
  return reason === undefined ? undefined : validateFreeText(reason, 'reason', ORDER_NOTE_MAX_LENGTH);
}

/**
 * Whether a caller may see and change an order (OWASP API1): the key that placed it, an admin key,
 * or the service itself (no key: the CLI). Anyone else is told there is no such order, so that ids
 * cannot be probed.
 */
export function mayAccessOrder(
  order: Order,
  actor: { readonly apiKeyId?: string; readonly admin?: boolean },
): boolean {
  return actor.admin === true || actor.apiKeyId === undefined || order.placedBy === actor.apiKeyId;
}

/** Refuses an order for a pet that cannot be ordered: 404 (`pet_removed` too), 409 `pet_not_available`. */
export function refuseUnorderable(petId: number, pet: PetState): void {
  const { status } = livePet(pet, petId);
  if (status !== 'available') throw new PetNotAvailableError(petId, status);
}

/** An available pet, ordered: the order is placed and holds the pet, which becomes pending. */
export function decidePlaceOrder(
  order: NewOrder,
  orderId: number,
  pet: PetState,
  placedBy: string | undefined,
  now: Date,
): OrderDecision<OrderPlaced> {
  refuseUnorderable(order.petId, pet);
  const [petChange] = decideChangeStatus(pet, order.petId, 'pending', orderId);
  const data = {
    orderId,
    petId: order.petId,
    placedAt: now.toISOString(),
    ...(placedBy !== undefined && { placedBy }),
    ...(order.note !== undefined && { note: order.note }),
  };
  return { order: { type: 'OrderPlaced', data }, pet: petChange! };
}

/** A placed order, completed: its pet is sold. */
export function decideCompleteOrder(order: Order | undefined, id: number, pet: PetState, now: Date) {
  const open = placed(order, id, 'complete');
  const completed: OrderCompleted = {
    type: 'OrderCompleted',
    data: { orderId: id, petId: open.petId, completedAt: now.toISOString() },
  };
  return { order: completed, pet: releasedAs(pet, open, 'sold') };
}

/** A placed order, cancelled: its pet is available again. */
export function decideCancelOrder(
  order: Order | undefined,
  id: number,
  pet: PetState,
  reason: string | undefined,
  now: Date,
) {
  const open = placed(order, id, 'cancel');
  const cancelled: OrderCancelled = {
    type: 'OrderCancelled',
    data: {
      orderId: id,
      petId: open.petId,
      cancelledAt: now.toISOString(),
      ...(reason !== undefined && { reason }),
    },
  };
  return { order: cancelled, pet: releasedAs(pet, open, 'available') };
}

function placed(order: Order | undefined, id: number, wanted: 'complete' | 'cancel'): Order {
  if (order === undefined) throw new NotFoundError(`No order has the id ${id}.`);
  if (order.status !== 'placed') throw new InvalidOrderTransitionError(id, order.status, wanted);
  return order;
}

/**
 * The pet's change when its order closes. The order holds it, so it is pending and nothing else
 * could have changed its status; a store that says otherwise was written by something else.
 */
function releasedAs(pet: PetState, order: Order, status: 'sold' | 'available'): PetStatusChanged {
  if (pet?.kind !== 'live' || pet.heldBy !== order.id) {
    throw new Error(`Pet ${order.petId} is not held by order ${order.id}, which holds it.`);
  }
  return decideChangeStatus(pet, order.petId, status, order.id)[0]!;
}

export function evolveOrder(state: Order | undefined, event: OrderEvent): Order | undefined {
  switch (event.type) {
    case 'OrderPlaced': {
      const { orderId, petId, placedAt, placedBy, note } = event.data;
      return {
        id: orderId,
        petId,
        status: 'placed',
        placedAt,
        ...(placedBy !== undefined && { placedBy }),
        ...(note !== undefined && { note }),
      };
    }
    case 'OrderCompleted':
      return state && { ...state, status: 'completed', completedAt: event.data.completedAt };
    case 'OrderCancelled':
      return (
        state && {
          ...state,
          status: 'cancelled',
          cancelledAt: event.data.cancelledAt,
          ...(event.data.reason !== undefined && { cancelReason: event.data.reason }),
        }
      );
  }
}
