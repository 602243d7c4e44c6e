import { FixedBuffer, Repeater } from 'graphql-yoga';
import type { StreamWatch } from './access-watch.ts';
import { SubscriberTooSlowError } from '../shared/errors.ts';
import { ITEMS_PER_TURN, nextTurn } from '../shared/next-turn.ts';

/** How far a subscriber may fall behind before its stream is ended rather than grow without bound. */
export const LIVE_STREAM_BUFFER = 1000;

/**
 * A subscription resumed after a position: what came before now, and the live items from now on.
 * `replayed` may also be the whole stream, pulled as the client reads (the audit feed follows the
 * store so): `unsubscribe` runs as soon as the stream stops, and must end it.
 */
export type Resumed<T> = { readonly replayed?: AsyncIterable<T>; readonly unsubscribe: () => void };

/**
 * What a subscription delivers from now on, as an async iterator: `subscribe` registers an emitter
 * and returns its removal, which runs when the client goes away. It ends when `closing` aborts,
 * so that the response completes and the server can close, with subscriber_too_slow when the
 * client falls more than LIVE_STREAM_BUFFER items behind, and with the error `watch` ends it with.
 */
export function liveStream<T>(
  subscribe: (emit: (item: T) => void) => () => void,
  closing: AbortSignal,
  watch?: StreamWatch,
): AsyncIterableIterator<T> {
  return resumedStream((emit) => ({ unsubscribe: subscribe(emit) }), closing, watch);
}

/**
 * As `liveStream`, after the items `start` replays: those are delivered first, as fast as the client
 * reads them (each waits for room in the buffer), while the live items that arrive meanwhile wait
 * behind them, up to LIVE_STREAM_BUFFER (past it, subscriber_too_slow as for a slow reader).
 */
export function resumedStream<T>(
  start: (emit: (item: T) => void) => Resumed<T>,
  closing: AbortSignal,
  watch?: StreamWatch,
): AsyncIterableIterator<T> {
  const buffer = new FixedBuffer(LIVE_STREAM_BUFFER);
  return new Repeater<T>(async (push, stop) => {
    if (closing.aborted) {
      stop();
      return;
    }
    const end = () => stop();
    closing.addEventListener('abort', end, { once: true });
    let waiting: T[] | undefined = [];
    const handOn = (item: T): Promise<unknown> => {
      const withdrawn = watch?.now();
      if (withdrawn === undefined) return push(item);
      stop(withdrawn);
      return stop;
    };
    const deliver = (item: T) => {
      // Checked here: past a full buffer, Repeater queues up to 1024 more pushes before it throws.
      if (buffer.full) stop(new SubscriberTooSlowError(LIVE_STREAM_BUFFER));
      else void handOn(item);
    };
    const { replayed, unsubscribe } = start((item) => {
      if (waiting === undefined) deliver(item);
      else if (waiting.length < LIVE_STREAM_BUFFER) waiting.push(item);
      else stop(new SubscriberTooSlowError(LIVE_STREAM_BUFFER));
    });
    // Once started: a start that throws has nothing to end, and leaves no watch behind.
    const unwatch = watch?.start((error) => stop(error));
    const handOver = async (meanwhile: T[]) => {
      if (replayed !== undefined) await pushEach(replayed, handOn, stop);
      // The live items that came meanwhile, then (in the same step as the last) live delivery.
      while (meanwhile.length > 0) await pushEach(meanwhile.splice(0), handOn, stop);
      waiting = undefined;
    };
    // Not awaited: a replay waiting for its next item ends only once `unsubscribe` ends it.
    handOver(waiting).catch((error: unknown) => stop(error));
    await stop;
    closing.removeEventListener('abort', end);
    unwatch?.();
    unsubscribe();
  }, buffer);
}

/**
 * Pushes each item once there is room for it, until the items end or the stream stops, letting the
 * event loop take its other work every ITEMS_PER_TURN items. `stop` is listened to once: racing it
 * for each item (`Promise.race([push(item), stop])`) left a reaction on it per item, held until the
 * stream ended, so a replay of n events held n of them (about 4 KB each) for the stream's life.
 */
async function pushEach<T>(
  items: AsyncIterable<T> | Iterable<T>,
  push: (item: T) => Promise<unknown>,
  stop: Promise<unknown>,
): Promise<void> {
  let stopped = false;
  let wake: (() => void) | undefined;
  void stop.then(() => {
    stopped = true;
    wake?.();
  });
  let handed = 0;
  for await (const item of items) {
    if (stopped) return;
    const pushed = push(item);
    await new Promise<void>((resolve) => {
      wake = resolve;
      pushed.then(
        () => resolve(),
        () => resolve(),
      );
    });
    wake = undefined;
    if (++handed % ITEMS_PER_TURN === 0) await nextTurn();
  }
}
