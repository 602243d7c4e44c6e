import { Readable } from 'node:stream';
import { ITEMS_PER_TURN, nextTurn } from '../shared/next-turn.ts';

/** A comment line this often keeps an idle stream open through proxies that time out silent ones. */
export const SSE_HEARTBEAT_MS = 15_000;
/** What a client should wait before reconnecting (the `retry:` field), in milliseconds. */
const RECONNECT_MS = 1000;

/**
 * Server-sent events (WHATWG HTML, "Server-sent events"): each item as one event, `id:` its store
 * position (a client reconnecting sends it back as Last-Event-ID) and `data:` its JSON. A response
 * body for Fastify to pipe: it pulls the next item only when the socket has taken the last, so a
 * slow client holds back only its own feed, and a fast one lets the event loop take its other work
 * every ITEMS_PER_TURN events. It ends when `items` does (abort their source to end it).
 */
export function sseBody<T>(items: AsyncIterable<T>, idOf: (item: T) => string): Readable {
  return Readable.from(frames(items, idOf), { objectMode: false });
}

const HEARTBEAT = Symbol('heartbeat');

async function* frames<T>(items: AsyncIterable<T>, idOf: (item: T) => string): AsyncGenerator<string> {
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
    yield `id: ${idOf(first.value)}\ndata: ${JSON.stringify(first.value)}\n\n`;
    if (++sent % ITEMS_PER_TURN === 0) await nextTurn();
    next = iterator.next();
  }
}
