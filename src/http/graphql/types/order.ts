import {
  InvalidOrderTransitionError,
  ORDER_NOTE_MAX_LENGTH,
  ORDER_STATUSES,
  PetNotAvailableError,
  type VersionedOrder,
} from '../../../domain/orders.ts';
import { PetRemovedError } from '../../../domain/pets.ts';
import {
  IdempotencyKeyReusedError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from '../../../shared/errors.ts';
import { withArgumentNames } from '../argument-names.ts';
import { builder } from '../builder.ts';
import { decodeCursor } from '../cursor.ts';
import { accessWatch } from '../../access-watch.ts';
import { noteStorePosition } from '../store-position.ts';
import { orderChanges, orderStreamScopes } from '../../change-streams.ts';
import { RESUME_AFTER } from './resume-after.ts';
import { connection, exposedConnection } from '../page.ts';
import { ErrorInterface } from './errors.ts';
import { IDEMPOTENCY_ARGUMENTS, IDEMPOTENCY_KEY } from './idempotency-key.ts';
import { Pet } from './pet.ts';
import { SafeInt } from './safe-int.ts';

/** The store group: REST's /v1/store, field for field, through the same handlers. */

const OrderStatus = builder.enumType('OrderStatus', {
  description:
    'placed holds the pet until the order is completed (the pet is sold) or cancelled (it is available again).',
  values: ORDER_STATUSES,
});

export const Order = builder.objectRef<VersionedOrder>('Order').implement({
  description: 'An order for one pet. Only the key that placed it, or an admin key, sees it.',
  fields: (t) => ({
    id: t.expose('id', { type: SafeInt }),
    petId: t.expose('petId', { type: SafeInt, description: 'The pet ordered.' }),
    pet: t.field({
      type: Pet,
      nullable: true,
      description: 'The pet as it is now; null once removed.',
      authScopes: { scope: 'pets:read' },
      resolve: (order, _args, { application }) => {
        try {
          return application.getPet(order.petId);
        } catch (error) {
          if (error instanceof PetRemovedError) return null;
          throw error;
        }
      },
    }),
    status: t.field({
      type: OrderStatus,
      description:
        'placed (it holds its pet, pending), then completed (the pet sold) or cancelled (available again).',
      resolve: (order) => order.status,
    }),
    placedAt: t.exposeString('placedAt', { description: 'When it was placed: an RFC 3339 time, UTC.' }),
    placedBy: t.string({
      nullable: true,
      description: 'The id of the API key that placed it (not its secret); null when none did.',
      resolve: (order) => order.placedBy ?? null,
    }),
    note: t.string({
      nullable: true,
      description: 'The note given when it was placed.',
      resolve: (order) => order.note ?? null,
    }),
    completedAt: t.string({
      nullable: true,
      description: 'When it was completed (RFC 3339, UTC); null unless completed.',
      resolve: (order) => order.completedAt ?? null,
    }),
    cancelledAt: t.string({
      nullable: true,
      description: 'When it was cancelled (RFC 3339, UTC); null unless cancelled.',
      resolve: (order) => order.cancelledAt ?? null,
    }),
    cancelReason: t.string({
      nullable: true,
      description: 'The reason given when it was cancelled, if any.',
      resolve: (order) => order.cancelReason ?? null,
    }),
    version: t.exposeInt('version', { description: 'The revision of the order’s stream: REST’s ETag.' }),
  }),
});

const Inventory = builder
  .objectRef<{ available: number; pending: number; sold: number }>('Inventory')
  .implement({
    description: 'How many pets in the catalogue have each status.',
    fields: (t) => ({
      available: t.exposeInt('available'),
      pending: t.exposeInt('pending'),
      sold: t.exposeInt('sold'),
    }),
  });

for (const [error, name, description] of [
  [PetNotAvailableError, 'PetNotAvailableError', 'The pet is not available (code pet_not_available).'],
  [
    InvalidOrderTransitionError,
    'InvalidOrderTransitionError',
    'The order is completed or cancelled already (code invalid_order_transition); nothing changed.',
  ],
] as const) {
  builder.objectType(error, { name, description, interfaces: [ErrorInterface], fields: () => ({}) });
}

const NewOrder = builder.inputType('NewOrder', {
  description: 'An order for an available pet.',
  fields: (t) => ({
    petId: t.field({ type: SafeInt, required: true }),
    note: t.string({ description: `At most ${ORDER_NOTE_MAX_LENGTH} characters.` }),
  }),
});

const OrderConnection = exposedConnection(Order, { connection: 'OrderConnection', edge: 'OrderEdge' });
const ORDER_ARGUMENTS = new Map([
  ['orderId', 'id'],
  ['limit', 'first'],
]);
const CLOSE_ERRORS = [NotFoundError, InvalidOrderTransitionError, PreconditionFailedError];
const expected = (version: number | null | undefined) =>
  version == null ? {} : { expectedVersions: [version] };

builder.queryFields((t) => ({
  orders: t.field({
    type: OrderConnection,
    nullable: true,
    authScopes: { scope: 'orders:read' },
    description:
      'Your orders (every order, for an admin key), in ascending id order (the order they were placed ' +
      'in, with one process): REST’s list rules.',
    args: { first: t.arg.int(), after: t.arg.string(), status: t.arg({ type: OrderStatus }) },
    resolve: (_root, args, { application, requestContext }) => {
      const page = withArgumentNames(ORDER_ARGUMENTS, () =>
        application.listOrders(
          {
            ...(args.first != null && { limit: args.first }),
            ...(args.status != null && { status: args.status }),
            ...(args.after != null && { after: decodeCursor('order', args.after) }),
          },
          requestContext,
        ),
      );
      return connection('order', page.orders, page.nextAfter !== undefined);
    },
  }),
  order: t.field({
    type: Order,
    nullable: true,
    authScopes: { scope: 'orders:read' },
    description: 'One of your orders. Another key’s order is null with not_found, as an unknown id is.',
    args: { id: t.arg({ type: SafeInt, required: true }) },
    resolve: (_root, args, { application, requestContext }) =>
      withArgumentNames(ORDER_ARGUMENTS, () => application.getOrder(args.id, requestContext)),
  }),
  inventory: t.field({
    type: Inventory,
    nullable: true,
    authScopes: { scope: 'pets:read' },
    description: 'How many pets are available, pending and sold: exact after every write you made.',
    resolve: (_root, _args, { application }) => application.inventory(),
  }),
}));

builder.mutationFields((t) => ({
  placeOrder: t.field({
    type: Order,
    nullable: true,
    authScopes: { scope: 'orders:write' },
    description: 'Orders an available pet: the order is placed and the pet pending, together or not at all.',
    errors: {
      types: [
        ValidationError,
        NotFoundError,
        PetRemovedError,
        PetNotAvailableError,
        IdempotencyKeyReusedError,
      ],
      union: { name: 'PlaceOrderResult' },
    },
    args: { input: t.arg({ type: NewOrder, required: true }), idempotencyKey: IDEMPOTENCY_KEY(t) },
    resolve: async (_root, { input, idempotencyKey }, { application, requestContext }) => {
      const order = { petId: input.petId, ...(input.note != null && { note: input.note }) };
      const placed = await withArgumentNames(IDEMPOTENCY_ARGUMENTS, () =>
        application.placeOrder(order, requestContext, idempotencyKey == null ? {} : { idempotencyKey }),
      );
      return placed.order;
    },
  }),
  completeOrder: t.field({
    type: Order,
    nullable: true,
    authScopes: { scope: 'orders:write' },
    description: 'Completes a placed order: the pet is sold.',
    errors: { types: [ValidationError, ...CLOSE_ERRORS], union: { name: 'CompleteOrderResult' } },
    args: { id: t.arg({ type: SafeInt, required: true }), expectedVersion: t.arg.int() },
    resolve: async (_root, { id, expectedVersion }, { application, requestContext }) =>
      (
        await withArgumentNames(ORDER_ARGUMENTS, () =>
          application.completeOrder(id, requestContext, expected(expectedVersion)),
        )
      ).order,
  }),
  cancelOrder: t.field({
    type: Order,
    nullable: true,
    authScopes: { scope: 'orders:write' },
    description: 'Cancels a placed order: the pet is available again.',
    errors: { types: [ValidationError, ...CLOSE_ERRORS], union: { name: 'CancelOrderResult' } },
    args: {
      id: t.arg({ type: SafeInt, required: true }),
      expectedVersion: t.arg.int(),
      reason: t.arg.string({
        description: `Why, for the audit trail: at most ${ORDER_NOTE_MAX_LENGTH} characters.`,
      }),
    },
    resolve: async (_root, { id, expectedVersion, reason }, { application, requestContext }) =>
      (
        await withArgumentNames(ORDER_ARGUMENTS, () =>
          application.cancelOrder(id, requestContext, {
            ...expected(expectedVersion),
            ...(reason != null && { reason }),
          }),
        )
      ).order,
  }),
}));

builder.subscriptionFields((t) => ({
  orderChanged: t.field({
    type: Order,
    authScopes: { scope: 'orders:read' },
    description:
      'Your orders (every order, for an admin key) as they are placed, completed or cancelled, in store order. ' +
      'Each event carries its store position in `extensions.storePosition`; to resume after a disconnection, ' +
      'subscribe again with `after` set to the last one received: the changes since are delivered first.',
    args: { after: t.arg.string({ description: RESUME_AFTER }) },
    subscribe: (_root, { after }, { application, closing, requestContext, req, reply }) =>
      orderChanges(application, requestContext, after, {
        closing,
        reply,
        watch: accessWatch(req, orderStreamScopes(requestContext)),
      }),
    resolve: (change, _args, context) => {
      noteStorePosition(context, change.position);
      return change.order;
    },
  }),
}));
