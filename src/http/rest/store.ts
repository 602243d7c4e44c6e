import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Application } from '../../application/index.ts';
import type { VersionedOrder } from '../../domain/orders.ts';
import { ValidationError } from '../../shared/errors.ts';
import { allowOnly } from '../four-oh-four.ts';
import { inventoryResponseSchema, orderResponseSchema, ordersResponseSchema } from '../openapi.ts';
import { requestContext } from '../request-context.ts';
import { etagOf, notModified } from './etag.ts';
import {
  idParam,
  integerParam,
  nextPageLink,
  noFields,
  onlyQueryParams,
  preconditions,
  presentOnly,
  stringParam,
} from './params.ts';
import { singleHeader } from '../single-header.ts';

const READ = { scope: 'orders:read' } as const;
const WRITE = { scope: 'orders:write' } as const;

/** REST /v1/store: orders and the inventory, translated to the application layer and back. */
export async function storeRoutes(
  app: FastifyInstance,
  options: { application: Application },
): Promise<void> {
  const { application } = options;
  const one = { schema: { response: { 200: orderResponseSchema } } };

  app.get(
    '/store/orders',
    { config: READ, schema: { response: { 200: ordersResponseSchema } } },
    (request, reply) => {
      presentOnly(
        request,
        "orders are listed only as they are now; GET /v1/store/orders/{orderId}/history gives an order's past",
      );
      const query = request.query as Record<string, unknown>;
      const page = application.listOrders(
        {
          limit: integerParam(query, 'limit'),
          status: stringParam(query, 'status'),
          after: integerParam(query, 'after'),
        },
        requestContext(request),
      );
      if (page.nextAfter !== undefined)
        reply.header('Link', nextPageLink('/v1/store/orders', query, page.nextAfter));
      return reply.send(page.orders);
    },
  );

  app.post(
    '/store/orders',
    { config: WRITE, schema: { response: { 201: orderResponseSchema } } },
    async (request, reply) => {
      onlyQueryParams(request, [], 'placing an order takes none (its fields go in the body)');
      const idempotencyKey = singleHeader(request, 'Idempotency-Key');
      const { order, replayed } = await application.placeOrder(
        request.body,
        requestContext(request),
        idempotencyKey === undefined ? {} : { idempotencyKey },
      );
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return sendOrder(reply.code(201).header('Location', `/v1/store/orders/${order.id}`), order);
    },
  );

  app.get(
    '/store/orders/:orderId',
    { config: READ, schema: { response: { 200: orderResponseSchema, 304: { type: 'null' } } } },
    (request, reply) => {
      const id = idParam(request, 'orderId');
      presentOnly(
        request,
        `an order is read only as it is now; GET /v1/store/orders/${id}/history gives its past`,
      );
      const order = application.getOrder(id, requestContext(request));
      if (notModified(request.headers, `Order ${order.id}`, order.version)) {
        return reply.code(304).header('ETag', etagOf(order.version)).send();
      }
      return sendOrder(reply, order);
    },
  );

  app.post('/store/orders/:orderId/complete', { config: WRITE, ...one }, async (request, reply) => {
    onlyQueryParams(request, [], 'completing an order takes none');
    noFields(request.body, 'completing an order takes no fields');
    const { order } = await application.completeOrder(
      idParam(request, 'orderId'),
      requestContext(request),
      preconditions(request),
    );
    return sendOrder(reply, order);
  });

  app.post('/store/orders/:orderId/cancel', { config: WRITE, ...one }, async (request, reply) => {
    onlyQueryParams(request, [], 'a cancellation takes none (a reason goes in the body: {"reason": "…"})');
    const reason = cancelReason(request.body);
    const { order } = await application.cancelOrder(idParam(request, 'orderId'), requestContext(request), {
      ...preconditions(request),
      ...(reason !== undefined && { reason }),
    });
    return sendOrder(reply, order);
  });

  app.get(
    '/store/inventory',
    { config: { scope: 'pets:read' }, schema: { response: { 200: inventoryResponseSchema } } },
    (request) => {
      presentOnly(
        request,
        'the inventory counts pets only as they are now; GET /v1/pets?asOf=… lists the catalogue as it was',
      );
      return application.inventory();
    },
  );

  allowOnly(app, '/store/orders', ['GET', 'HEAD', 'POST']);
  allowOnly(app, '/store/orders/:orderId', ['GET', 'HEAD']);
  allowOnly(app, '/store/orders/:orderId/complete', ['POST']);
  allowOnly(app, '/store/orders/:orderId/cancel', ['POST']);
  allowOnly(app, '/store/inventory', ['GET', 'HEAD']);
}

function sendOrder(reply: FastifyReply, order: VersionedOrder): FastifyReply {
  return reply.header('ETag', etagOf(order.version)).send(order);
}

/** The optional body of a cancellation: nothing, or `{"reason": "…"}`. */
function cancelReason(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError('The body must be a JSON object with an optional reason.');
  }
  const fields = Object.keys(body);
  const unknown = fields.find((field) => field !== 'reason');
  if (unknown !== undefined) {
    throw new ValidationError(`Field ${unknown} cannot be set; a cancellation accepts a reason.`, unknown);
  }
  return (body as { reason?: string }).reason;
}
