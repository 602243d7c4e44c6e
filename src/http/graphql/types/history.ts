import type { HistoryEntry, HistoryPage } from '../../../application/index.ts';
import { withArgumentNames } from '../argument-names.ts';
import { builder } from '../builder.ts';
import { decodeCursor } from '../cursor.ts';
import { connection, exposedConnection } from '../page.ts';
import { RecordedEvent } from './event-fields.ts';
import { Order } from './order.ts';
import { Pet } from './pet.ts';
import { SafeInt } from './safe-int.ts';

/**
 * REST's history routes, with the same data and the same scope: `petHistory(id)` and
 * `orderHistory(id)` as they are (a removed pet's, any order's), and `Pet.history` and
 * `Order.history` beside the pet or order a query reads.
 */

const HistoryEvent = builder.objectRef<HistoryEntry>('HistoryEvent').implement({
  description: 'One event of a pet’s or an order’s stream.',
  interfaces: [RecordedEvent],
});

const HistoryConnection = exposedConnection(HistoryEvent, {
  connection: 'HistoryConnection',
  edge: 'HistoryEdge',
});
const ARGUMENTS = new Map([['limit', 'first']]);
const PET_ARGUMENTS = new Map([...ARGUMENTS, ['petId', 'id']]);
const ORDER_ARGUMENTS = new Map([...ARGUMENTS, ['orderId', 'id']]);

function historyConnection(page: HistoryPage) {
  return connection('history', page.events, page.nextAfter !== undefined, (event) => event.revision);
}

function paging(args: { first?: number | null; after?: string | null }) {
  return {
    ...(args.first != null && { limit: args.first }),
    ...(args.after != null && { after: decodeCursor('history', args.after) }),
  };
}

builder.objectField(Pet, 'history', (t) =>
  t.field({
    type: HistoryConnection,
    nullable: true,
    authScopes: { scope: 'audit:read' },
    description:
      'Who changed this pet, when, and from what: every event of its stream, oldest first, also under ' +
      'pet(id, asOf). Null, with an ' +
      'insufficient_scope error, for a key without audit:read: the pet (and a mutation that returned it) stays.',
    args: { first: t.arg.int(), after: t.arg.string() },
    resolve: async (pet, args, { application }) =>
      historyConnection(
        await withArgumentNames(ARGUMENTS, () => application.petHistory(pet.id, paging(args))),
      ),
  }),
);

builder.objectField(Order, 'history', (t) =>
  t.field({
    type: HistoryConnection,
    nullable: true,
    authScopes: { scope: 'audit:read' },
    description:
      'Every event of this order’s stream, oldest first. Null, with an insufficient_scope error, for a key ' +
      'without audit:read: the order (and a mutation that returned it) stays.',
    args: { first: t.arg.int(), after: t.arg.string() },
    resolve: async (order, args, { application }) =>
      historyConnection(
        await withArgumentNames(ARGUMENTS, () => application.orderHistory(order.id, paging(args))),
      ),
  }),
);

builder.queryField('petHistory', (t) =>
  t.field({
    type: HistoryConnection,
    nullable: true,
    authScopes: { scope: 'audit:read' },
    description:
      'REST’s GET /v1/pets/{petId}/history: every event of the pet’s stream, oldest first, a removed pet’s ' +
      'included. Null with not_found for an id no pet had.',
    args: { id: t.arg({ type: SafeInt, required: true }), first: t.arg.int(), after: t.arg.string() },
    resolve: async (_root, args, { application }) =>
      historyConnection(
        await withArgumentNames(PET_ARGUMENTS, () => application.petHistory(args.id, paging(args))),
      ),
  }),
);

builder.queryField('orderHistory', (t) =>
  t.field({
    type: HistoryConnection,
    nullable: true,
    authScopes: { scope: 'audit:read' },
    description:
      'REST’s GET /v1/store/orders/{orderId}/history: every event of the order’s stream, oldest first, ' +
      'whichever key placed it. Null with not_found for an id no order had.',
    args: { id: t.arg({ type: SafeInt, required: true }), first: t.arg.int(), after: t.arg.string() },
    resolve: async (_root, args, { application }) =>
      historyConnection(
        await withArgumentNames(ORDER_ARGUMENTS, () => application.orderHistory(args.id, paging(args))),
      ),
  }),
);
