import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Application, HistoryPage } from '../../application/index.ts';
import { allowOnly } from '../four-oh-four.ts';
import { historyResponseSchema } from '../openapi.ts';
import { idParam, integerParam, nextPageLink, presentOnly } from './params.ts';

const AUDIT = { scope: 'audit:read' } as const;

/** REST history of one pet or one order: every event of its stream, oldest first, paged. */
export async function historyRoutes(
  app: FastifyInstance,
  options: { application: Application },
): Promise<void> {
  const { application } = options;
  const schema = { response: { 200: historyResponseSchema } };

  app.get('/pets/:petId/history', { config: AUDIT, schema }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const id = idParam(request, 'petId');
    presentOnly(
      request,
      `a history holds every event of the pet, to now; GET /v1/pets/${id}?asOf=… reads it as it was`,
    );
    const page = await application.petHistory(id, paging(query));
    return sendPage(reply, page, `/v1/pets/${id}/history`, query);
  });

  app.get('/store/orders/:orderId/history', { config: AUDIT, schema }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const id = idParam(request, 'orderId');
    presentOnly(request, 'a history holds every event of the order, to now, each with its time and position');
    const page = await application.orderHistory(id, paging(query));
    return sendPage(reply, page, `/v1/store/orders/${id}/history`, query);
  });

  allowOnly(app, '/pets/:petId/history', ['GET', 'HEAD']);
  allowOnly(app, '/store/orders/:orderId/history', ['GET', 'HEAD']);
}

function paging(query: Record<string, unknown>) {
  return { limit: integerParam(query, 'limit'), after: integerParam(query, 'after') };
}

/** The next page keeps only the limit: other parameters are tolerated (cache-busters), not carried on. */
function sendPage(reply: FastifyReply, page: HistoryPage, path: string, query: Record<string, unknown>) {
  if (page.nextAfter !== undefined)
    reply.header('Link', nextPageLink(path, { limit: query.limit }, page.nextAfter));
  return reply.send(page.events);
}
