import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type Application,
  type OrderChange,
  parsePosition,
  type PetChange,
  type SentStart,
} from '../../application/index.ts';
import { NotAcceptableError, ValidationError } from '../../shared/errors.ts';
import { orderChanges, orderStreamScopes, petChanges } from '../change-streams.ts';
import { allowOnly } from '../four-oh-four.ts';
import { requestContext } from '../request-context.ts';
import { EVENT_STREAM, eventStreams, negotiated } from './event-stream.ts';
import { singleHeader } from '../single-header.ts';
import { presentOnly, stringParam } from './params.ts';

const PET_CHANGE_TYPES: readonly PetChange['type'][] = ['created', 'updated', 'removed'];

/**
 * GET /v1/pets/changes and GET /v1/store/orders/changes: GraphQL's petChanged (and, with
 * `type=created`, petCreated) and orderChanged as server-sent events, through the same functions,
 * under the same scopes and limits. Each event's `id:` is its store position, which a reconnecting
 * client sends back as Last-Event-ID to resume with no gap and no repeat.
 */
export async function changeStreamRoutes(
  app: FastifyInstance,
  options: { application: Application; stallMs: number },
): Promise<void> {
  const { application, stallMs } = options;
  const sendStream = eventStreams(app, stallMs);

  app.get('/pets/changes', { config: { scope: 'pets:read' } }, async (request, reply) => {
    const after = resumedFrom(request);
    const type = petChangeType(request.query as Record<string, unknown>);
    acceptEventStream(request);
    const wanted = type === undefined ? undefined : (change: PetChange) => change.type === type;
    return sendStream(
      request,
      reply,
      ['pets:read'],
      (ended) => petChanges(application, after, { closing: ended, reply }, wanted),
      (change) => ({ id: String(change.position), data: petChangeJson(change) }),
    );
  });

  app.get('/store/orders/changes', { config: { scope: 'orders:read' } }, async (request, reply) => {
    const after = resumedFrom(request);
    acceptEventStream(request);
    const context = requestContext(request);
    return sendStream(
      request,
      reply,
      orderStreamScopes(context),
      (ended) => orderChanges(application, context, after, { closing: ended, reply }),
      (change) => ({ id: String(change.position), data: orderChangeJson(change) }),
    );
  });

  allowOnly(app, '/pets/changes', ['GET', 'HEAD']);
  allowOnly(app, '/store/orders/changes', ['GET', 'HEAD']);
}

/**
 * Where a stream starts: after Last-Event-ID (a reconnecting client's, which wins), after `after`
 * (see `givenAfter`), or, with neither, from now on. The past (`asOf`) is not a stream's.
 */
function resumedFrom(request: FastifyRequest): SentStart | undefined {
  presentOnly(request, 'a stream holds the changes from now on, or after a store position (after)');
  const after = stringParam(request.query as Record<string, unknown>, 'after');
  const lastEventId = singleHeader(request, 'Last-Event-ID');
  if (after === undefined && lastEventId === undefined) return undefined;
  // Malformed, each is a 400 before Accept is weighed (a 406); past the store, once the stream starts.
  if (after !== undefined) parsePosition(after, 'after');
  if (lastEventId !== undefined) parsePosition(lastEventId, 'Last-Event-ID');
  return { after, lastEventId };
}

/**
 * These routes answer nothing but server-sent events: checked once the request's own parameters
 * are (a position past the store's last event is found later, when the stream starts: a 406 first).
 */
function acceptEventStream(request: FastifyRequest): void {
  if (negotiated(request, [EVENT_STREAM]) === undefined) throw new NotAcceptableError('text/event-stream');
}

function petChangeType(query: Record<string, unknown>): PetChange['type'] | undefined {
  const type = stringParam(query, 'type');
  if (type === undefined || (PET_CHANGE_TYPES as readonly string[]).includes(type))
    return type as PetChange['type'] | undefined;
  throw new ValidationError(`type must be one of ${PET_CHANGE_TYPES.join(', ')}.`, 'type');
}

/** GraphQL's PetChange, with the pet as REST shows it (its version is the event's). */
function petChangeJson(change: PetChange) {
  if (change.type === 'removed')
    return { type: change.type, id: change.id, version: change.version, pet: null };
  const { version, ...pet } = change.pet;
  return { type: change.type, id: pet.id, version, pet };
}

/** The order as REST shows it, after the change, with the version the change gave it. */
function orderChangeJson(change: OrderChange) {
  const { version, ...order } = change.order;
  return { id: order.id, version, order };
}
