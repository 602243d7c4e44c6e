import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { type MetricsSource, startMetricsListener } from '../../src/observability/metrics/listener.ts';

/** The metrics listener (METRICS_PORT) on its own: what it answers, and how it closes. */

/** What a listener over `source` answers to one request, the listener closed again. */
async function answerTo(path: string, init: RequestInit = {}, source: MetricsSource = new Registry()) {
  const listener = await startMetricsListener(source, {
    port: 0,
    host: '127.0.0.1',
    log: { error: () => {} },
  });
  try {
    const response = await fetch(`${new URL(listener.url).origin}${path}`, init);
    return {
      status: response.status,
      allow: response.headers.get('allow'),
      type: response.headers.get('content-type'),
      body: await response.text(),
    };
  } finally {
    await listener.close();
  }
}

describe('what the metrics listener answers', () => {
  it("HEAD /metrics: 200 with the scrape's content type and no body", async () => {
    expect(await answerTo('/metrics', { method: 'HEAD' })).toEqual({
      status: 200,
      allow: null,
      type: new Registry().contentType,
      body: '',
    });
  });

  it('another method on /metrics: 405 with Allow and the Error body', async () => {
    expect(await answerTo('/metrics', { method: 'POST' })).toEqual({
      status: 405,
      allow: 'GET, HEAD',
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({
        code: 'method_not_allowed',
        message: 'Method POST is not allowed on /metrics; use GET or HEAD.',
        status: 405,
      }),
    });
  });

  it('another path: 404 with the Error body', async () => {
    expect(await answerTo('/v1/pets?x=1')).toEqual({
      status: 404,
      allow: null,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({
        code: 'not_found',
        message: 'No route GET /v1/pets here: only GET /metrics.',
        status: 404,
      }),
    });
  });

  it('a collection that fails: 500 with the Error body, and nothing of the error', async () => {
    const failing = { contentType: 'text/plain', metrics: () => Promise.reject(new Error('secret detail')) };
    expect(await answerTo('/metrics', {}, failing)).toEqual({
      status: 500,
      allow: null,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({
        code: 'internal_error',
        message: 'The server failed to collect its metrics. It has been logged.',
        status: 500,
      }),
    });
  });
});

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
