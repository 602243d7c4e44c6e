import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { BannedError } from '../../shared/auth-errors.ts';
import { SubscriberTooSlowError } from '../../shared/errors.ts';
import type { Scope } from '../../domain/scopes.ts';
import { accessWatch, type StreamWatch } from '../access-watch.ts';
import { afterClose } from '../response-closed.ts';
import { type SseFrame, sseBody } from '../sse.ts';
import { endWhenStalled } from '../stalled-stream.ts';

/** What a stream's items are read from: `ended` aborts when the stream ends, however it ends. */
export type StreamStart<T> = (ended: AbortSignal) => Promise<AsyncIterable<T>>;

/**
 * The REST routes' server-sent event streams (the audit feed's, the pet and order changes'): each
 * counts against its key's STREAMS_PER_KEY, ends when the server starts closing, when its client
 * has read nothing for the stall limit, and within about a second once the key may no longer read
 * it (revoked, expired, banned, without the scope): the reconnection then gets that 401, 403 or 429
 * with its Error body. A replay refused its reads (the key banned) and a live stream whose client
 * fell too far behind end it too: a client reconnecting with Last-Event-ID resumes where it was.
 */
export function eventStreams(app: FastifyInstance, stallMs: number) {
  const open = new Set<AbortController>();
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    for (const stream of open) stream.abort();
  });
  return async function sendStream<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    scopes: readonly Scope[],
    start: StreamStart<T>,
    frameOf: (item: T) => SseFrame,
  ): Promise<FastifyReply> {
    request.holdStream(reply.raw);
    const stream = new AbortController();
    // A bad position rejects here: the request fails with its 400, and no stream starts.
    const items = await start(stream.signal);
    open.add(stream);
    // Close began while the stream checked where to start (a network round trip on KurrentDB): it
    // ends at once too, rather than hold the shutdown until its connection is cut.
    if (closing) stream.abort();
    const watch = accessWatch(request, scopes);
    const unwatch = watch.start(() => stream.abort());
    const allowed = whileAllowed(items, watch, () => stream.abort());
    afterClose(reply.raw, () => {
      unwatch();
      stream.abort();
      open.delete(stream);
    });
    endWhenStalled(reply.raw, stallMs, request.log);
    return reply
      .type(EVENT_STREAM)
      .header('Cache-Control', 'no-store')
      .header('X-Accel-Buffering', 'no') // nginx: pass each event on at once
      .send(sseBody(allowed, frameOf));
  };
}

/**
 * The items, each only while the key may still read them: the watch ends an idle stream within a
 * second, and this check keeps any item from reaching a key that has lost the scope meanwhile (a
 * scope removed and granted again within the second included).
 */
async function* whileAllowed<T>(
  items: AsyncIterable<T>,
  watch: StreamWatch,
  withdrawn: () => void,
): AsyncGenerator<T> {
  try {
    for await (const item of items) {
      if (watch.now() !== undefined) return withdrawn();
      yield item;
    }
  } catch (error) {
    if (!(error instanceof BannedError || error instanceof SubscriberTooSlowError)) throw error;
    withdrawn();
  }
}

/** The charset is named so that a range naming utf-8 (`text/event-stream;charset=utf-8`) matches. */
export const EVENT_STREAM = 'text/event-stream; charset=utf-8';

/**
 * The media type Accept ranks first among `offered` (q-values, then the more specific range, then the
 * order listed), or undefined when it takes none of them. No Accept takes the first.
 */
export function negotiated(request: FastifyRequest, offered: readonly string[]): string | undefined {
  if (request.headers.accept === undefined) return offered[0];
  return new Negotiator(request.raw).mediaType([...offered]);
}
