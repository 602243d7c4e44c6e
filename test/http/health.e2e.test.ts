import { randomUUID } from 'node:crypto';
import path from 'node:path';
import fp from 'fastify-plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { openGuard } from '../../src/http/guard.ts';
import { startTestApp } from '../support/app.ts';
import { openApiMismatches, type ResponseLike } from '../support/openapi.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** The probes of a real server process: no key, no limit, and ready once it serves. */

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;
beforeAll(async () => {
  temp = makeTempDir('petstore-health-');
  server = await startServerProcess({ PETSTORE_DATA_DIR: temp.dir });
});
afterAll(async () => {
  await server?.kill();
  temp?.remove();
});

/** A fetched response in the shape openApiMismatches reads. */
async function asResponseLike(response: Response): Promise<ResponseLike> {
  return {
    statusCode: response.status,
    body: await response.text(),
    headers: Object.fromEntries(response.headers),
  };
}

describe.each(['/health/live', '/health/ready', '/health'])('GET %s', (path) => {
  it('answers 200 {"status":"ok"} without a key and without rate-limit headers', async () => {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('answers as the OpenAPI document describes it', async () => {
    const response = await asResponseLike(await fetch(`${server.url}${path}`));
    expect(openApiMismatches('GET', path, response)).toEqual([]);
  });

  it('answers another method with 405 method_not_allowed and Allow, without a key', async () => {
    const response = await fetch(`${server.url}${path}`, { method: 'POST' });
    expect([response.status, response.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await response.json()).code).toBe('method_not_allowed');
  });

  it('ignores X-Min-Position, which is for reads of the read models: a probe still answers 200', async () => {
    const statuses = await Promise.all(
      ['not-a-position', '99999999999'].map(
        async (position) =>
          (await fetch(`${server.url}${path}`, { headers: { 'x-min-position': position } })).status,
      ),
    );
    expect(statuses).toEqual([200, 200]);
  });

  it('is never rate-limited: more probes than any per-address budget all succeed', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => (await fetch(`${server.url}${path}`)).status),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe('while the server shuts down', () => {
  it('/health/ready answers 503 not_ready with the reason; /health/live still 200', async () => {
    const held = Promise.withResolvers<void>();
    const closeStarted = Promise.withResolvers<void>();
    const guard = fp(
      async (app) => {
        await app.register(openGuard);
        app.addHook('preClose', (done) => {
          closeStarted.resolve();
          void held.promise.then(() => done());
        });
      },
      { name: 'guard-holding-close' },
    );
    const t = await startTestApp({ guard: () => guard });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const closing = t.close();
    await closeStarted.promise;
    try {
      const ready = await fetch(`${address}/health/ready`, { headers: { 'x-request-id': randomUUID() } });
      expect(ready.status).toBe(503);
      expect(openApiMismatches('GET', '/health/ready', await asResponseLike(ready.clone()))).toEqual([]);
      expect(ready.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await ready.json()).toEqual({
        code: 'not_ready',
        message: 'Not ready: the server is shutting down.',
        status: 503,
      });
      expect((await fetch(`${address}/health/live`)).status).toBe(200);
    } finally {
      held.resolve();
      await closing;
    }
  });
});

describe('over a store a newer release wrote to', () => {
  it('/health/ready answers 503 not_ready naming the event type this release does not know; /health/live still 200', async () => {
    const dir = makeTempDir('petstore-newer-');
    const store = openSqliteEventStore({ file: path.join(dir.dir, 'events.sqlite') });
    const metadata = {
      eventId: randomUUID(),
      occurredAt: '2026-11-27T00:00:00.000Z',
      correlationId: randomUUID(),
      schemaVersion: 1,
    };
    await store.appendToStream('pet-1', [{ type: 'PetVaccinated', data: { id: 1 }, metadata }]);
    await store.close();
    const newer = await startServerProcess({ PETSTORE_DATA_DIR: dir.dir });
    try {
      const ready = await fetch(`${newer.url}/health/ready`);
      expect([ready.status, await ready.json()]).toEqual([
        503,
        {
          code: 'not_ready',
          message:
            'Not ready: read model pet-list passed over events of a type this release does not know (PetVaccinated, first at position 1): a newer release wrote them.',
          status: 503,
        },
      ]);
      expect((await fetch(`${newer.url}/health/live`)).status).toBe(200);
    } finally {
      await newer.kill();
      dir.remove();
    }
  });
});
