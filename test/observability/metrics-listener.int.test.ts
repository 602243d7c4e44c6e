import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { startMetricsListener } from '../../src/observability/metrics/listener.ts';

/** The metrics listener (METRICS_PORT) on its own: how it closes. */

describe('closing the metrics listener', () => {
  it('does not wait for a connection that has sent no request', async () => {
    const listener = await startMetricsListener(new Registry(), { port: 0, host: '127.0.0.1' });
    const socket = connect(Number(new URL(listener.url).port), '127.0.0.1');
    await once(socket, 'connect');
    try {
      const closing = listener.close().then(() => 'closed');
      expect(await Promise.race([closing, sleep(1_000, 'still open')])).toBe('closed');
    } finally {
      socket.destroy();
    }
  });
});
