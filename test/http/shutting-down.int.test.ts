import { randomUUID } from 'node:crypto';
import fp from 'fastify-plugin';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openGuard } from '../../src/http/guard.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let service: TestApp;
let closeStarted: Promise<void>;
let finishClosing: () => void;

/** The open guard, plus a preClose hook that holds close() half-way until the test lets it go. */
const guardHoldingClose = fp(
  async (app) => {
    await app.register(openGuard);
    const held = Promise.withResolvers<void>();
    const started = Promise.withResolvers<void>();
    closeStarted = started.promise;
    finishClosing = held.resolve;
    app.addHook('preClose', (done) => {
      started.resolve();
      void held.promise.then(() => done());
    });
  },
  { name: 'guard-holding-close' },
);

beforeEach(async () => {
  service = await startTestApp({ guard: () => guardHoldingClose });
});
afterEach(async () => {
  finishClosing();
  await service.close();
});

describe('while the server shuts down', () => {
  it('answers 503 shutting_down with the Error body and the X-Request-Id', async () => {
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const closing = service.app.close();
    await closeStarted;
    const requestId = randomUUID();
    const response = await fetch(`${address}/v1/pets`, { headers: { 'x-request-id': requestId } });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-request-id')).toBe(requestId);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      code: 'shutting_down',
      message: 'The server is shutting down; retry the request.',
      status: 503,
    });
    finishClosing();
    await closing;
  });
});
