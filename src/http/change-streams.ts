import type { FastifyReply } from 'fastify';
import type { Application, OrderChange, PetChange, SentStart } from '../application/index.ts';
import type { Scope } from '../domain/scopes.ts';
import type { RequestContext } from '../shared/context.ts';
import type { StreamWatch } from './access-watch.ts';
import { liveStream, resumedStream } from './live-stream.ts';
import { payFromBudget } from './replay-payment.ts';

/**
 * An open stream of changes: it ends when `closing` aborts (the server closes; for REST, the client
 * leaves too), and with the error `watch` finds (GraphQL; REST's feeds watch the key themselves).
 * A replay's reads are paid from the budget of the key behind `reply`.
 */
export type ChangeStream = {
  readonly closing: AbortSignal;
  readonly reply: FastifyReply;
  readonly watch?: StreamWatch;
};

/**
 * The pet changes a stream delivers (GraphQL's petChanged and petCreated, REST's GET
 * /v1/pets/changes): live, or resumed after a store position. A bad position rejects, before
 * anything of the stream starts: it fails the request, not the stream.
 */
export async function petChanges(
  application: Application,
  after: string | SentStart | null | undefined,
  stream: ChangeStream,
  wanted: (change: PetChange) => boolean = () => true,
): Promise<AsyncIterableIterator<PetChange>> {
  const { closing, reply, watch } = stream;
  const only = (emit: (change: PetChange) => void) => (change: PetChange) => {
    if (wanted(change)) emit(change);
  };
  if (after == null) return liveStream((emit) => application.onPetChange(only(emit)), closing, watch);
  const start = await application.resumePetChanges(after, payFromBudget(reply));
  return resumedStream(
    (emit) => {
      const { replayed, unsubscribe } = start(only(emit));
      return { replayed: filtered(replayed, wanted), unsubscribe };
    },
    closing,
    watch,
  );
}

/**
 * The scopes an order stream goes on needing: an admin key's stream carries every order, so it ends
 * when the key loses admin too, not only orders:read.
 */
export function orderStreamScopes(context: RequestContext): Scope[] {
  return context.admin ? ['orders:read', 'admin'] : ['orders:read'];
}

/**
 * The changes to the orders the caller may see (their own; every one for an admin key): GraphQL's
 * orderChanged and REST's GET /v1/store/orders/changes, live or resumed as `petChanges` is.
 */
export async function orderChanges(
  application: Application,
  context: RequestContext,
  after: string | SentStart | null | undefined,
  stream: ChangeStream,
): Promise<AsyncIterableIterator<OrderChange>> {
  const { closing, reply, watch } = stream;
  if (after == null)
    return liveStream<OrderChange>((emit) => application.onOrderChange(context, emit), closing, watch);
  const start = await application.resumeOrderChanges(context, after, payFromBudget(reply));
  return resumedStream<OrderChange>(start, closing, watch);
}

async function* filtered(changes: AsyncIterable<PetChange>, wanted: (change: PetChange) => boolean) {
  for await (const change of changes) if (wanted(change)) yield change;
}
