import { describe, expect, it } from 'vitest';
import {
  decideCancelOrder,
  decideCompleteOrder,
  decidePlaceOrder,
  evolveOrder,
  InvalidOrderTransitionError,
  mayAccessOrder,
  type Order,
  type OrderEvent,
  PetNotAvailableError,
  validateCancelReason,
  validateNewOrder,
} from '../../src/domain/orders.ts';
import { evolvePet, type Pet, type PetEvent, PetRemovedError, type PetState } from '../../src/domain/pets.ts';
import { NotFoundError, ValidationError } from '../../src/shared/errors.ts';

const NOW = new Date('2030-01-15T10:00:05.000Z');
const rex: Pet = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const pet = (...events: PetEvent[]): PetState => events.reduce<PetState>(evolvePet, undefined);
const order = (...events: OrderEvent[]): Order | undefined =>
  events.reduce<Order | undefined>(evolveOrder, undefined);
const available = pet({ type: 'PetCreated', data: rex });
const placed = decidePlaceOrder({ petId: 7, note: 'by noon' }, 3, available, 'key_a', NOW);
const heldPet = pet({ type: 'PetCreated', data: rex }, placed.pet);
const openOrder = order(placed.order);

describe('validateNewOrder', () => {
  it('accepts a pet id and a note', () => {
    expect(validateNewOrder({ petId: 7, note: 'by noon' })).toStrictEqual({ petId: 7, note: 'by noon' });
  });

  it('invents no note when none is given', () => {
    expect(validateNewOrder({ petId: 7 })).toStrictEqual({ petId: 7 });
  });

  it('accepts the pet ids 1 and 2^53−1', () => {
    expect([1, Number.MAX_SAFE_INTEGER].map((petId) => validateNewOrder({ petId }))).toEqual([
      { petId: 1 },
      { petId: Number.MAX_SAFE_INTEGER },
    ]);
  });

  it('says petId is required when it is missing', () => {
    expect(() => validateNewOrder({ note: 'x' })).toThrow(
      new ValidationError('petId is required: a pet id from 1 to 9007199254740991.', 'petId'),
    );
  });

  it.each([[0], [-1], [1.5], ['7'], [2 ** 53], [null]])('refuses the petId %j', (petId) => {
    expect(() => validateNewOrder({ petId })).toThrow(
      new ValidationError('petId must be a pet id from 1 to 9007199254740991, as a number.', 'petId'),
    );
  });

  it.each([[null], [[{ petId: 7 }]], ['{"petId":7}']])('refuses the body %j that is no object', (body) => {
    expect(() => validateNewOrder(body)).toThrow(
      new ValidationError('The body must be a JSON object with petId.'),
    );
  });

  it('refuses a field an order does not accept, naming it', () => {
    expect(() => validateNewOrder({ petId: 7, status: 'completed' })).toThrow(
      new ValidationError('Field status cannot be set; an order accepts petId and note.', 'status'),
    );
  });

  it('refuses a note longer than 500 characters, naming the field note', () => {
    expect(() => validateNewOrder({ petId: 7, note: 'x'.repeat(501) })).toThrow(
      expect.objectContaining({ field: 'note' }),
    );
  });
});

describe('validateCancelReason', () => {
  it('accepts no reason, and a reason of free text', () => {
    expect([validateCancelReason(undefined), validateCancelReason('changed my mind')]).toEqual([
      undefined,
      'changed my mind',
    ]);
  });

  it('refuses a reason that is no text, naming the field reason', () => {
    expect(() => validateCancelReason(42)).toThrow(new ValidationError('reason must be text.', 'reason'));
  });
});

describe('mayAccessOrder', () => {
  const theirs = openOrder!;

  it.each([
    [{ apiKeyId: 'key_a' }, true],
    [{ apiKeyId: 'key_b' }, false],
    [{ apiKeyId: 'key_b', admin: true }, true],
    [{}, true],
  ])('lets %j see an order key_a placed: %s', (actor, expected) => {
    expect(mayAccessOrder(theirs, actor)).toBe(expected);
  });

  it('lets no key see an order the CLI placed, except an admin key', () => {
    const byCli = order(decidePlaceOrder({ petId: 7 }, 4, available, undefined, NOW).order)!;
    expect([
      mayAccessOrder(byCli, { apiKeyId: 'key_a' }),
      mayAccessOrder(byCli, { apiKeyId: 'key_a', admin: true }),
    ]).toEqual([false, true]);
  });
});

describe('decidePlaceOrder', () => {
  it('places the order and makes its pet pending, held by the order', () => {
    expect(placed).toEqual({
      order: {
        type: 'OrderPlaced',
        data: {
          orderId: 3,
          petId: 7,
          placedAt: '2030-01-15T10:00:05.000Z',
          placedBy: 'key_a',
          note: 'by noon',
        },
      },
      pet: {
        type: 'PetStatusChanged',
        data: { id: 7, status: 'pending', previousStatus: 'available', orderId: 3 },
      },
    });
  });

  it('records neither placedBy nor a note when there are none', () => {
    expect(decidePlaceOrder({ petId: 7 }, 3, available, undefined, NOW).order.data).toStrictEqual({
      orderId: 3,
      petId: 7,
      placedAt: '2030-01-15T10:00:05.000Z',
    });
  });

  it('refuses a pet that is not available with 409 pet_not_available, saying its status', () => {
    expect(() => decidePlaceOrder({ petId: 7 }, 4, heldPet, 'key_b', NOW)).toThrow(
      new PetNotAvailableError(7, 'pending'),
    );
    expect(new PetNotAvailableError(7, 'pending')).toMatchObject({
      code: 'pet_not_available',
      status: 409,
      message: 'Pet 7 is pending, not available: it cannot be ordered.',
    });
  });

  it('refuses a pet without a status, saying so', () => {
    const statusless = pet({ type: 'PetCreated', data: { id: 7, name: 'Rex', categoryId: 1 } });
    expect(() => decidePlaceOrder({ petId: 7 }, 4, statusless, undefined, NOW)).toThrow(
      'Pet 7 is without a status, not available: it cannot be ordered.',
    );
  });

  it('answers not_found for a pet that never existed and pet_removed for a removed one', () => {
    expect(() => decidePlaceOrder({ petId: 7 }, 4, undefined, undefined, NOW)).toThrow(NotFoundError);
    expect(() => decidePlaceOrder({ petId: 7 }, 4, { kind: 'removed' }, undefined, NOW)).toThrow(
      PetRemovedError,
    );
  });
});

describe('decideCompleteOrder', () => {
  it('completes a placed order and sells its pet', () => {
    expect(decideCompleteOrder(openOrder, 3, heldPet, NOW)).toEqual({
      order: {
        type: 'OrderCompleted',
        data: { orderId: 3, petId: 7, completedAt: '2030-01-15T10:00:05.000Z' },
      },
      pet: {
        type: 'PetStatusChanged',
        data: { id: 7, status: 'sold', previousStatus: 'pending', orderId: 3 },
      },
    });
  });

  it('answers not_found for an order that does not exist', () => {
    expect(() => decideCompleteOrder(undefined, 3, heldPet, NOW)).toThrow(
      new NotFoundError('No order has the id 3.'),
    );
  });

  it('refuses to complete an order twice with 409 invalid_order_transition', () => {
    const done = decideCompleteOrder(openOrder, 3, heldPet, NOW);
    expect(() =>
      decideCompleteOrder(
        order(placed.order, done.order),
        3,
        pet({ type: 'PetCreated', data: rex }, placed.pet, done.pet),
        NOW,
      ),
    ).toThrow(new InvalidOrderTransitionError(3, 'completed', 'complete'));
    expect(new InvalidOrderTransitionError(3, 'completed', 'complete')).toMatchObject({
      code: 'invalid_order_transition',
      status: 409,
      message: 'Order 3 is completed: it cannot complete any more.',
    });
  });

  it('refuses, as a broken store, to close an order whose pet it does not hold', () => {
    expect(() => decideCompleteOrder(openOrder, 3, available, NOW)).toThrow(
      'Pet 7 is not held by order 3, which holds it.',
    );
  });
});

describe('decideCancelOrder', () => {
  it('cancels a placed order with its reason and makes its pet available again', () => {
    expect(decideCancelOrder(openOrder, 3, heldPet, 'changed my mind', NOW)).toEqual({
      order: {
        type: 'OrderCancelled',
        data: { orderId: 3, petId: 7, cancelledAt: '2030-01-15T10:00:05.000Z', reason: 'changed my mind' },
      },
      pet: {
        type: 'PetStatusChanged',
        data: { id: 7, status: 'available', previousStatus: 'pending', orderId: 3 },
      },
    });
  });

  it('records no reason when none is given', () => {
    expect(decideCancelOrder(openOrder, 3, heldPet, undefined, NOW).order.data).toStrictEqual({
      orderId: 3,
      petId: 7,
      cancelledAt: '2030-01-15T10:00:05.000Z',
    });
  });

  it('refuses to cancel a cancelled order, saying what it is', () => {
    const cancelled = decideCancelOrder(openOrder, 3, heldPet, undefined, NOW);
    expect(() => decideCancelOrder(order(placed.order, cancelled.order), 3, heldPet, undefined, NOW)).toThrow(
      'Order 3 is cancelled: it cannot cancel any more.',
    );
  });
});

describe('evolveOrder', () => {
  it('folds placing and completing into the order', () => {
    const done = decideCompleteOrder(openOrder, 3, heldPet, NOW);
    expect(order(placed.order, done.order)).toStrictEqual({
      id: 3,
      petId: 7,
      status: 'completed',
      placedAt: '2030-01-15T10:00:05.000Z',
      placedBy: 'key_a',
      note: 'by noon',
      completedAt: '2030-01-15T10:00:05.000Z',
    });
  });

  it('folds a cancellation and its reason into the order, and keeps no absent fields', () => {
    const bare = decidePlaceOrder({ petId: 7 }, 3, available, undefined, NOW);
    const cancelled = decideCancelOrder(
      order(bare.order),
      3,
      pet({ type: 'PetCreated', data: rex }, bare.pet),
      'gone',
      NOW,
    );
    expect(order(bare.order, cancelled.order)).toStrictEqual({
      id: 3,
      petId: 7,
      status: 'cancelled',
      placedAt: '2030-01-15T10:00:05.000Z',
      cancelledAt: '2030-01-15T10:00:05.000Z',
      cancelReason: 'gone',
    });
  });

  it('keeps no cancelReason for a cancellation without a reason', () => {
    const cancelled = decideCancelOrder(openOrder, 3, heldPet, undefined, NOW);
    expect(order(placed.order, cancelled.order)).not.toHaveProperty('cancelReason');
  });
});
