import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import type { Application } from '../../src/application/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { openGuard } from '../../src/http/guard.ts';

/** The service's HTTP layer over an application whose list fails the way a bug would. */
async function appWithFailingList() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  const application = {
    listPets: () => {
      throw new TypeError('Cannot read properties of undefined (reading "ids")');
    },
  } as unknown as Application;
  const app = await buildApp({
    config: { bodyLimitBytes: 16_384, trustProxy: false, graphql: { introspection: false } },
    application,
    guard: openGuard,
    logger: pino({ level: 'info' }, stream),
  });
  return { app, lines };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
});

it('logs an unexpected error once, under the request id the client was given, as reqId alone', async () => {
  const { app, lines } = await appWithFailingList();
  close = () => app.close();
  const response = await app.inject({ method: 'GET', url: '/v1/pets' });
  await new Promise((resolve) => setImmediate(resolve));
  const requestId = response.headers['x-request-id'];
  expect(response.statusCode).toBe(500);
  const logged = lines.filter((line) => line.msg === 'unexpected error');
  expect(logged).toMatchObject([{ level: 50, reqId: requestId, err: { type: 'TypeError' } }]);
  expect(logged[0]).not.toHaveProperty('requestId');
});

it('writes nothing for a request that succeeds: request logging is off', async () => {
  const { app, lines } = await appWithFailingList();
  close = () => app.close();
  await app.inject({ method: 'GET', url: '/health' });
  await new Promise((resolve) => setImmediate(resolve));
  expect(lines.filter((line) => line.reqId !== undefined)).toEqual([]);
});
