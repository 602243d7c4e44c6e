import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Application, type EventFeedQuery, parsePosition } from '../../application/index.ts';
import { allowOnly } from '../four-oh-four.ts';
import { auditEventsResponseSchema } from '../openapi.ts';
import { sseBody } from '../sse.ts';
import { integerParam, singleHeader, stringParam } from './params.ts';

const AUDIT = { scope: 'audit:read' } as const;

/**
 * GET /v1/audit/events: every event of the store in store order, a page at a time, or, with
 * `Accept: text/event-stream`, live as server-sent events that a client resumes with
 * Last-Event-ID. Open streams end when the server starts closing.
 */
export async function auditEventRoutes(
  app: FastifyInstance,
  options: { application: Application },
): Promise<void> {
  const { application } = options;
  const open = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const stream of open) stream.abort();
  });

  app.get(
    '/audit/events',
    { config: AUDIT, schema: { response: { 200: auditEventsResponseSchema } } },
    async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const after = position(stringParam(query, 'after'), 'after');
      // A reconnecting client's Last-Event-ID, when it sends one, is where it resumes.
      const resumeAt = position(singleHeader(request, 'last-event-id'), 'Last-Event-ID');
      const filter = { ...feedFilter(query), ...optional('after', resumeAt ?? after) };
      if (wantsEventStream(request)) {
        const stream = new AbortController();
        const events = await application.followEvents(filter, stream.signal);
        open.add(stream);
        reply.raw.once('close', () => {
          stream.abort();
          open.delete(stream);
        });
        return reply
          .type('text/event-stream; charset=utf-8')
          .header('Cache-Control', 'no-store')
          .header('X-Accel-Buffering', 'no') // nginx: pass each event on at once
          .send(sseBody(events, (event) => event.position));
      }
      const page = await application.eventFeed({
        ...filter,
        ...optional('limit', integerParam(query, 'limit')),
      });
      if (page.nextAfter !== undefined) reply.header('Link', nextLink(query, page.nextAfter));
      return page.events;
    },
  );
  allowOnly(app, '/audit/events', ['GET', 'HEAD']);
}

function feedFilter(query: Record<string, unknown>): Omit<EventFeedQuery, 'limit' | 'after'> {
  return {
    ...optional('type', stringParam(query, 'type')),
    ...optional('stream', stringParam(query, 'stream')),
  };
}

function position(value: string | undefined, name: string): bigint | undefined {
  return value === undefined ? undefined : parsePosition(value, name);
}

function optional<K extends string, V>(name: K, value: V | undefined): { [key in K]?: V } {
  return value === undefined ? {} : ({ [name]: value } as { [key in K]: V });
}

function wantsEventStream(request: FastifyRequest): boolean {
  return request.headers.accept?.includes('text/event-stream') === true;
}

/** The next page: the same filters and limit, after the cursor. */
function nextLink(query: Record<string, unknown>, after: string): string {
  const kept = ['limit', 'type', 'stream'].filter((name) => typeof query[name] === 'string');
  const pairs = kept.map((name) => `${name}=${encodeURIComponent(query[name] as string)}`);
  return `</v1/audit/events?${[...pairs, `after=${after}`].join('&')}>; rel="next"`;
}
