import { describe, expect, it } from 'vitest';
import type { StreamWatch } from '../../src/http/access-watch.ts';
import { LIVE_STREAM_BUFFER, liveStream, resumedStream } from '../../src/http/live-stream.ts';
import { SubscriberTooSlowError } from '../../src/shared/errors.ts';

/** A feed of numbered items that the test drives by hand. */
function feed() {
  const listeners = new Set<(item: { id: number }) => void>();
  return {
    listeners,
    subscribe(listener: (item: { id: number }) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    create(id: number) {
      for (const listener of listeners) listener({ id });
    },
  };
}

describe('liveStream', () => {
  it(`ends with subscriber_too_slow once ${LIVE_STREAM_BUFFER} items wait unread, after delivering them`, async () => {
    const application = feed();
    const stream = liveStream(application.subscribe, new AbortController().signal);
    const first = stream.next(); // starts the stream: it subscribes
    for (let id = 1; id <= LIVE_STREAM_BUFFER + 2; id++) application.create(id);
    const ids = [(await first).value.id];
    for (let i = 1; i < LIVE_STREAM_BUFFER + 1; i++) ids.push((await stream.next()).value.id);
    expect(ids).toEqual(Array.from({ length: LIVE_STREAM_BUFFER + 1 }, (_, i) => i + 1));
    const error = await stream.next().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SubscriberTooSlowError);
    expect(error).toMatchObject({
      code: 'subscriber_too_slow',
      message: `This subscriber fell more than ${LIVE_STREAM_BUFFER} events behind; subscribe again.`,
    });
    expect(application.listeners.size).toBe(0);
  });

  it('ends when the server starts closing, and unsubscribes', async () => {
    const application = feed();
    const closing = new AbortController();
    const stream = liveStream(application.subscribe, closing.signal);
    const next = stream.next();
    application.create(1);
    expect((await next).value.id).toBe(1);
    closing.abort();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(application.listeners.size).toBe(0);
  });

  /** A watch the test ends by hand, or withdraws by hand, and whether its end was taken back. */
  function watch() {
    const state: { end?: (error: Error) => void; unwatched: boolean; withdrawn?: Error } = {
      unwatched: false,
    };
    const start: StreamWatch = {
      start: (end) => {
        state.end = end;
        return () => (state.unwatched = true);
      },
      now: () => state.withdrawn,
    };
    return { state, start };
  }

  /** A stream with a watch, which has handed on its first item. */
  async function watchedPastItemOne() {
    const application = feed();
    const { state, start } = watch();
    const stream = liveStream(application.subscribe, new AbortController().signal, start);
    const next = stream.next();
    application.create(1);
    expect((await next).value.id).toBe(1);
    return { application, state, stream };
  }

  it('ends with the error its watch ends it with, then unsubscribes and drops the watch', async () => {
    const { application, state, stream } = await watchedPastItemOne();
    const revoked = new Error('revoked');
    state.end!(revoked);
    await expect(stream.next()).rejects.toBe(revoked);
    expect([application.listeners.size, state.unwatched]).toEqual([0, true]);
  });

  it('hands on no item once its watch says the stream may no longer have it, and ends with that error', async () => {
    const { application, state, stream } = await watchedPastItemOne();
    const revoked = new Error('revoked');
    state.withdrawn = revoked;
    application.create(2);
    await expect(stream.next()).rejects.toBe(revoked);
  });

  it('drops its watch when the client leaves first', async () => {
    const { application, state, stream } = await watchedPastItemOne();
    await stream.return!(undefined);
    expect([application.listeners.size, state.unwatched]).toEqual([0, true]);
  });

  it('ends a replay still waiting for its next item once the client leaves, not once the item comes', async () => {
    const following = new AbortController();
    async function* replayed() {
      yield { id: 1 };
      await new Promise((resolve) => following.signal.addEventListener('abort', resolve));
    }
    const stream = resumedStream(
      () => ({ replayed: replayed(), unsubscribe: () => following.abort() }),
      new AbortController().signal,
    );
    expect((await stream.next()).value).toEqual({ id: 1 });
    const left = stream.return!(undefined);
    await expect.poll(() => following.signal.aborted, { timeout: 1000 }).toBe(true);
    expect(await left).toEqual({ done: true, value: undefined });
  });

  it('lets the event loop take its other work while it replays, rather than only when the replay ends', async () => {
    const count = 1000;
    async function* replayed() {
      for (let id = 1; id <= count; id++) yield { id };
    }
    const stream = resumedStream(
      () => ({ replayed: replayed(), unsubscribe: () => {} }),
      new AbortController().signal,
    );
    let delivered = 0;
    let deliveredWhenOtherWorkRan: number | undefined;
    setImmediate(() => (deliveredWhenOtherWorkRan = delivered));
    while (delivered < count) {
      await stream.next();
      delivered++;
    }
    await stream.return!(undefined);
    expect(deliveredWhenOtherWorkRan).toBeLessThan(100);
  });
});
