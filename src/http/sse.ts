import { Readable } from 'node:stream';
import { ITEMS_PER_TURN, nextTurn } from '../shared/next-turn.ts';

/** A comment line this often keeps an idle stream open through proxies that time out silent ones. */
export const SSE_HEARTBEAT_MS = 15_000;
/** What a client should wait before reconnecting (the `retry:` field), in milliseconds. */
const RECONNECT_MS = 1000;

/**
 * An item as an event: `id` its store position (a client reconnecting sends it back as
 * Last-Event-ID) and `data` what is sent as JSON. Without data, the `id:` alone moves the client's
 * last event id and dispatches nothing (WHATWG HTML, "dispatch the event").
 */
export type SseFrame = { readonly id: string; readonly data?: unknown };

/**
 * Server-sent events (WHATWG HTML, "Server-sent events"): each item as one event. A response
 * body for Fastify to pipe: it pulls the next item only when the socket has taken the last, so a
 * slow client holds back only its own feed, and a fast one lets the event loop take its other work
 * every ITEMS_PER_TURN events. It ends when `items` does (abort their source to end it).
 */
export function sseBody<T>(items: AsyncIterable<T>, frameOf: (item: T) => SseFrame): Readable {
  return Readable.from(frames(items, frameOf), { objectMode: false });
}

const HEARTBEAT = Symbol('heartbeat');

async function* frames<T>(items: AsyncIterable<T>, frameOf: (item: T) => SseFrame): AsyncGenerator<string> {
  yield `retry: ${RECONNECT_MS}\n\n`;
  const iterator = items[Symbol.asyncIterator]();
  let next = iterator.next();
  let sent = 0;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const heartbeat = new Promise<typeof HEARTBEAT>((resolve) => {
      timer = setTimeout(resolve, SSE_HEARTBEAT_MS, HEARTBEAT);
    });
    const first = await Promise.race([next, heartbeat]);
    clearTimeout(timer);
    if (first === HEARTBEAT) {
      yield ': heartbeat\n\n';
      continue;
    }
    if (first.done === true) return;
    // JSON has no raw line breaks, so the data is one line.
    const { id, data } = frameOf(first.value);
    yield data === undefined ? `id: ${id}\n\n` : `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
    if (++sent % ITEMS_PER_TURN === 0) await nextTurn();
    next = iterator.next();
  }
}
