import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { afterClose } from './response-closed.ts';

/** STREAM_STALL_SECONDS's default. */
export const DEFAULT_STALL_MS = 60_000;

/**
 * Ends an event stream whose client has taken nothing of it for `limitMs` while it had something
 * to send: the socket's buffer stayed over its mark, with no `drain`. Such a client holds the
 * stream's buffers, its store subscription and its replay for as long as it keeps the connection,
 * and each new stream costs it only one request of its rate limit. An idle stream (nothing to
 * send) is not stalled, and a slow reader that drains now and then is not either. The client may
 * reconnect and resume (Last-Event-ID, `after`).
 */
export function endWhenStalled(res: ServerResponse, limitMs: number, log: FastifyBaseLogger): void {
  let drains = 0;
  let stalled: { since: number; drains: number } | undefined;
  const onDrain = () => void (drains += 1);
  res.on('drain', onDrain);
  const everyMs = Math.min(5_000, Math.max(100, limitMs / 4));
  let lastTick = performance.now();
  const timer = setInterval(() => {
    // A tick far behind its time: this process did not run (a VM paused, SIGSTOP, a starved CPU),
    // so a client that read all along could not be seen doing it (its `drain` is still to come, as
    // timers run before I/O): the wait starts again from now rather than count the pause as the
    // client's.
    const late = performance.now() - lastTick > 2 * everyMs;
    lastTick = performance.now();
    if (late || !res.writableNeedDrain || (stalled !== undefined && drains !== stalled.drains)) {
      stalled = res.writableNeedDrain ? { since: performance.now(), drains } : undefined;
      return;
    }
    stalled ??= { since: performance.now(), drains };
    if (performance.now() - stalled.since < limitMs) return;
    clearInterval(timer);
    log.info(
      { bufferedBytes: res.writableLength, stalledMs: Math.round(performance.now() - stalled.since) },
      'event stream ended: its client took nothing of it for STREAM_STALL_SECONDS',
    );
    res.destroy();
  }, everyMs);
  timer.unref();
  afterClose(res, () => {
    clearInterval(timer);
    res.off('drain', onDrain);
  });
}
