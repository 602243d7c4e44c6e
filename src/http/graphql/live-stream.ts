import { FixedBuffer, Repeater } from 'graphql-yoga';
import { SubscriberTooSlowError } from '../../shared/errors.ts';

/** How far a subscriber may fall behind before its stream is ended rather than grow without bound. */
export const LIVE_STREAM_BUFFER = 1000;

/**
 * What a subscription delivers from now on, as an async iterator: `subscribe` registers an emitter
 * and returns its removal, which runs when the client goes away. It ends when `closing` aborts,
 * so that the response completes and the server can close, and with subscriber_too_slow when the
 * client falls more than LIVE_STREAM_BUFFER items behind.
 */
export function liveStream<T>(
  subscribe: (emit: (item: T) => void) => () => void,
  closing: AbortSignal,
): AsyncIterableIterator<T> {
  const buffer = new FixedBuffer(LIVE_STREAM_BUFFER);
  return new Repeater<T>(async (push, stop) => {
    if (closing.aborted) {
      stop();
      return;
    }
    const end = () => stop();
    closing.addEventListener('abort', end, { once: true });
    const unsubscribe = subscribe((item) => {
      // Checked here: past a full buffer, Repeater queues up to 1024 more pushes before it throws.
      if (buffer.full) stop(new SubscriberTooSlowError(LIVE_STREAM_BUFFER));
      else void push(item);
    });
    await stop;
    closing.removeEventListener('abort', end);
    unsubscribe();
  }, buffer);
}
