import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Application, type EventFeedQuery, isCheckpoint } from '../../application/index.ts';
import { allowOnly } from '../four-oh-four.ts';
import { auditEventsResponseSchema } from '../openapi.ts';
import { payFromBudget } from '../replay-payment.ts';
import { EVENT_STREAM, eventStreams, negotiated } from './event-stream.ts';
import { singleHeader } from '../single-header.ts';
import { integerParam, presentOnly, stringParam } from './params.ts';

const AUDIT = { scope: 'audit:read' } as const;

/**
 * GET /v1/audit/events: every event of the store in store order, a page at a time, or, with
 * `Accept: text/event-stream`, live as server-sent events that a client resumes with
 * Last-Event-ID. Open streams end when the server starts closing, and when the key that opened
 * one may no longer read the feed.
 */
export async function auditEventRoutes(
  app: FastifyInstance,
  options: { application: Application; stallMs: number },
): Promise<void> {
  const { application, stallMs } = options;
  const sendStream = eventStreams(app, stallMs);

  app.get(
    '/audit/events',
    { config: AUDIT, schema: { response: { 200: auditEventsResponseSchema } } },
    async (request, reply) => {
      presentOnly(
        request,
        'the feed holds every event, to now, each with its time; after starts it past a position',
      );
      const query = request.query as Record<string, unknown>;
      // A reconnecting client's Last-Event-ID, when it sends one, is where it resumes. Both are
      // passed on as sent: the application checks them, in the order GraphQL's auditEvents does.
      const filter = {
        ...feedFilter(query),
        ...optional('after', stringParam(query, 'after')),
        ...optional('lastEventId', singleHeader(request, 'Last-Event-ID')),
      };
      if (wantsEventStream(request)) {
        return sendStream(
          request,
          reply,
          [AUDIT.scope],
          (ended) => application.followFeed(filter, ended, payFromBudget(reply)),
          (item) => (isCheckpoint(item) ? { id: item.checkpoint } : { id: item.position, data: item }),
        );
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

function optional<K extends string, V>(name: K, value: V | undefined): { [key in K]?: V } {
  return value === undefined ? {} : ({ [name]: value } as { [key in K]: V });
}

/**
 * Whether Accept ranks server-sent events above JSON (q-values, then the more specific range, then
 * the order listed: `text/event-stream;q=0` or `application/json, text/event-stream` get a page). A
 * header that takes neither gets a page too, as every REST route answers JSON.
 */
function wantsEventStream(request: FastifyRequest): boolean {
  return negotiated(request, FEED_TYPES) === EVENT_STREAM;
}

const FEED_TYPES = ['application/json; charset=utf-8', EVENT_STREAM];

/** The next page: the same filters and limit, after the cursor. */
function nextLink(query: Record<string, unknown>, after: string): string {
  const kept = ['limit', 'type', 'stream'].filter((name) => typeof query[name] === 'string');
  const pairs = kept.map((name) => `${name}=${encodeURIComponent(query[name] as string)}`);
  return `</v1/audit/events?${[...pairs, `after=${after}`].join('&')}>; rel="next"`;
}
