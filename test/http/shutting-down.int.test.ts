import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import fp from 'fastify-plugin';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/application/commands/api-keys.ts';
import { apiKeyGuard, type Guard } from '../../src/http/guard.ts';
import type { Service } from '../../src/service.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { systemClock } from '../../src/shared/context.ts';

let service: TestApp;
let closeStarted: Promise<void>;
let finishClosing: () => void;

/** A guard, plus a preClose hook that holds close() half-way until the test lets it go. */
const holdingClose = (guard: Guard) =>
  fp(
    async (app) => {
      await app.register(guard);
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
  service = await startTestApp({
    guard: (started: Service) => holdingClose(apiKeyGuard(started.auth)),
  });
});
afterEach(async () => {
  finishClosing();
  await service.close();
});

describe('while the server shuts down', () => {
  it('answers 503 shutting_down with the Error body and the X-Request-Id', async () => {
    const secret = await freeKey();
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const closing = service.app.close();
    await closeStarted;
    const requestId = randomUUID();
    const response = await fetch(`${address}/v1/pets`, {
      headers: { 'x-request-id': requestId, authorization: `Bearer ${secret}` },
    });
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

  it('carries the key’s rate-limit headers, counting the request like any other', async () => {
    const secret = await freeKey();
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const closing = service.app.close();
    await closeStarted;
    const response = await fetch(`${address}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } });
    expect(response.status).toBe(503);
    expect([
      response.headers.get('x-ratelimit-limit'),
      response.headers.get('x-ratelimit-remaining'),
    ]).toEqual(['60', '59']);
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    await response.arrayBuffer();
    finishClosing();
    await closing;
  });
});

describe('a request in flight when the server starts shutting down', () => {
  it('is answered with Connection: close, so that its client sends nothing more on that connection', async () => {
    const secret = await freeKey();
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = service.app.server.address() as { port: number };
    const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    const received = once(service.app.server, 'request');
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${secret}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await received;
    const closing = service.app.close();
    await closeStarted;
    socket.write(body);
    await once(socket, 'close');
    const [statusLine, ...headerLines] = answer.split('\r\n\r\n')[0]!.split('\r\n');
    expect(statusLine).toBe('HTTP/1.1 201 Created');
    expect(headerLines.filter((line) => /^connection:/i.test(line))).toEqual(['Connection: close']);
    finishClosing();
    await closing;
  });
});

async function freeKey(): Promise<string> {
  const { secret, position } = await issueApiKey(
    { store: service.store, clock: systemClock },
    { plan: 'free' },
    { correlationId: randomUUID() },
  );
  await service.service.auth.keys.waitFor(position);
  return secret;
}
