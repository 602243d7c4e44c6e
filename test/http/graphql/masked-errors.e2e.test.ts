import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Application } from '../../../src/application/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { buildApp } from '../../../src/http/app.ts';
import { openGuard } from '../../../src/http/guard.ts';
import { type Service, startService } from '../../../src/service.ts';
import { makeTempDir } from '../../support/temp-dir.ts';

/** The real app with a logger whose lines the test can read, and an application that can fail. */
const logLines: Record<string, unknown>[] = [];
const temp = makeTempDir();
let service: Service;
let application: Application;
let app: Awaited<ReturnType<typeof buildApp>>;
let endpoint: string;

beforeAll(async () => {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'error', PETSTORE_DATA_DIR: temp.dir });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level: 'error' }, sink);
  service = await startService(config, logger);
  application = service.application;
  app = await buildApp({ config, application, guard: openGuard, logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/graphql`;
});
afterAll(async () => {
  await app.close();
  await service.stop();
  temp.remove();
});

describe('masked errors', () => {
  it('answers an unexpected failure with a generic internal_error and logs it with the request id', async () => {
    const original = application.listPets;
    application.listPets = () => {
      throw new Error('disk on fire at /var/secret/path');
    };
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-masked-1' },
        body: JSON.stringify({ query: '{ pets { edges { cursor } } }' }),
      });
      expect(await response.json()).toEqual({
        data: { pets: null },
        errors: [
          {
            message: 'The server failed to handle the request. It has been logged.',
            path: ['pets'],
            extensions: { code: 'internal_error' },
          },
        ],
      });
      const logged = logLines.find((line) => line.requestId === 'req-masked-1');
      expect(logged).toMatchObject({
        msg: 'unexpected GraphQL error',
        err: { message: 'disk on fire at /var/secret/path' },
      });
    } finally {
      application.listPets = original;
    }
  });

  it('masks and logs a failing subscription source, which has no path', async () => {
    const original = application.onPetChange;
    application.onPetChange = () => {
      throw new Error('subscription feed lost at /var/secret/path');
    };
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'x-request-id': 'req-masked-sse',
        },
        body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
      });
      const events = (await response.text()).split('\n\n').filter((block) => block.startsWith('event:'));
      expect(events).toEqual([
        'event: next\ndata: {"errors":[{"message":"The server failed to handle the request. It has been logged.","locations":[{"line":1,"column":1}],"extensions":{"code":"internal_error"}}]}',
        'event: complete\ndata:',
      ]);
      const logged = logLines.find((line) => line.requestId === 'req-masked-sse');
      expect(logged).toMatchObject({
        msg: 'unexpected GraphQL error',
        err: { message: 'subscription feed lost at /var/secret/path' },
      });
    } finally {
      application.onPetChange = original;
    }
  });

  it('lets a deliberate error through with its code and message', async () => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ pet(id: 424242) { id } }' }),
    });
    const body = (await response.json()) as { errors: unknown[] };
    expect(body.errors).toEqual([
      { message: 'No pet has the id 424242.', path: ['pet'], extensions: { code: 'not_found' } },
    ]);
  });
});
