import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endWhenStalled } from '../../src/http/stalled-stream.ts';

/**
 * The stall watch tick by tick: the interval is faked, and the clock it reads (performance.now) is
 * set by hand, so that a pause of the process (SIGSTOP, a VM paused) is a clock that jumped between
 * two ticks. STREAM_STALL_SECONDS is 1 s here: a tick every 250 ms.
 */

const LIMIT_MS = 1000;
const TICK_MS = 250;
let now: number;

beforeEach(() => {
  now = 0;
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  vi.spyOn(performance, 'now').mockImplementation(() => now);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** An event stream whose socket's buffer is over its mark (its client has not read it yet). */
function bufferedStream() {
  const res = Object.assign(new EventEmitter(), {
    closed: false,
    writableNeedDrain: true,
    writableLength: 65_536,
    destroy: vi.fn(),
  });
  endWhenStalled(res as unknown as ServerResponse, LIMIT_MS, {
    info: () => {},
  } as unknown as FastifyBaseLogger);
  return res;
}

/** The clock moves on by `ms`, then the next tick runs (after `ms` of the process not running, if more than a tick). */
function tickAfter(ms: number): void {
  now += ms;
  vi.advanceTimersByTime(TICK_MS);
}

describe('a server paused past the limit (3 s) while its client read', () => {
  it('does not end the stream at the first tick after the pause, which runs before the client’s drain', () => {
    const stream = bufferedStream();
    tickAfter(TICK_MS); // the buffer is over its mark: the wait starts
    tickAfter(3000); // the pause: the client read all along, its drain is still to come
    stream.emit('drain');
    expect(stream.destroy).not.toHaveBeenCalled();
  });

  it('ends it the limit after the pause when its client took nothing since', () => {
    const stream = bufferedStream();
    tickAfter(TICK_MS);
    tickAfter(3000);
    for (let tick = 1; tick < LIMIT_MS / TICK_MS; tick++) tickAfter(TICK_MS);
    expect(stream.destroy).not.toHaveBeenCalled();
    tickAfter(TICK_MS);
    expect(stream.destroy).toHaveBeenCalledOnce();
  });
});
