import { afterEach, describe, expect, it } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../support/guarded-app.ts';
import { capturedLogger } from '../support/log-lines.ts';

/** ACCESS_LOG=true: one structured line per request, with nothing secret in it. */

let service: GuardedApp | undefined;
afterEach(async () => service?.close());

async function withAccessLog(accessLog: string) {
  const { logger, lines } = capturedLogger();
  service = await startGuardedApp({
    clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)),
    env: { ACCESS_LOG: accessLog },
    logger,
  });
  return { app: service, lines: () => lines.filter((line) => line.msg === 'request') };
}

describe('the access log', () => {
  it('logs request id, method, route pattern, status, duration and key id: never the key', async () => {
    const { app, lines } = await withAccessLog('true');
    const { secret, keyId } = await app.issueKey({ plan: 'free' });
    const created = await app.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    const response = await app.app.inject({
      url: `/v1/pets/${created.json().id}?verbose=1`,
      headers: { authorization: `Bearer ${secret}`, 'x-request-id': 'trace-me-1' },
    });
    expect(response.statusCode).toBe(200);
    const line = lines().find((entry) => entry.reqId === 'trace-me-1');
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      reqId: 'trace-me-1',
      method: 'GET',
      route: '/v1/pets/:petId',
      status: 200,
      ms: expect.any(Number),
      keyId,
      msg: 'request',
    });
    expect(JSON.stringify(lines())).not.toContain(secret);
  });

  it('logs a refused request too, without a key id', async () => {
    const { app, lines } = await withAccessLog('true');
    await app.app.inject({ url: '/v1/pets', headers: { 'x-request-id': 'no-key-1' } });
    expect(lines().find((entry) => entry.reqId === 'no-key-1')).toMatchObject({
      status: 401,
      keyId: null,
      route: '/v1/pets',
    });
  });

  it('logs a request the router refused, for a malformed percent-encoding in its path', async () => {
    const { app, lines } = await withAccessLog('true');
    const { secret, keyId } = await app.issueKey({ plan: 'free' });
    await app.app.inject({
      url: '/v1/pets/%zz',
      headers: { authorization: `Bearer ${secret}`, 'x-request-id': 'bad-url-1' },
    });
    expect(lines().find((entry) => entry.reqId === 'bad-url-1')).toMatchObject({
      method: 'GET',
      route: null,
      status: 400,
      keyId,
    });
  });

  it('logs an event stream its client left, once, with how long it was open, marked closedEarly', async () => {
    const { app, lines } = await withAccessLog('true');
    const { secret, keyId } = await app.issueKey({ plan: 'free' });
    const origin = await app.app.listen({ port: 0, host: '127.0.0.1' });
    const client = new AbortController();
    const response = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-request-id': 'stream-left-1',
      },
      body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
      signal: client.signal,
    });
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.abort();
    const logged = () => lines().filter((entry) => entry.reqId === 'stream-left-1');
    const deadline = Date.now() + 5_000;
    while (logged().length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logged()).toEqual([
      expect.objectContaining({
        method: 'POST',
        route: '/graphql',
        status: 200,
        keyId,
        closedEarly: true,
        ms: expect.toSatisfy((ms: number) => ms >= 50),
      }),
    ]);
  });

  it('is off by default', async () => {
    const { app, lines } = await withAccessLog('false');
    await app.app.inject({ url: '/v1/pets' });
    expect(lines()).toEqual([]);
  });
});
