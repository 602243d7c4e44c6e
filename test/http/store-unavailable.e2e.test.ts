import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiMismatches } from '../support/openapi.ts';
import { createApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * A real server process whose embedded store cannot grow (PETSTORE_FAILPOINT=store-cannot-grow):
 * once the pages its file has are full, SQLite answers every append SQLITE_FULL, as on a full disk,
 * until the test frees pages (a table of its own, the "ballast"). The store cannot take writes for
 * now: REST and GraphQL answer 503 store_unavailable with Retry-After, the process is not ready,
 * the log says so once, and everything comes back without a restart.
 */

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;
let secret: string;
let ballast: DatabaseSync;
beforeAll(async () => {
  temp = makeTempDir('petstore-full-');
  const env = { PETSTORE_DATA_DIR: temp.dir };
  secret = createApiKey(env);
  ballast = new DatabaseSync(path.join(temp.dir, 'events.sqlite'));
  ballast.exec('CREATE TABLE ballast (b BLOB)');
  for (let i = 0; i < 100; i++) ballast.exec('INSERT INTO ballast VALUES (zeroblob(4000))');
  server = await startServerProcess({ ...env, PETSTORE_FAILPOINT: 'store-cannot-grow' });
}, 60_000);
afterAll(async () => {
  ballast?.close();
  await server?.kill();
  temp?.remove();
});

const createPet = (name: string, idempotencyKey?: string) =>
  fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    body: JSON.stringify({ name, categoryId: 1 }),
  });

const graphql = (query: string) =>
  fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });

describe('a store that cannot take writes (its pages full)', () => {
  let refused: Response;
  let refusedBody: string;
  /** The last request made while filling, the one refused. */
  let refusedRequest: { name: string; key: string };
  beforeAll(async () => {
    for (let i = 0; i < 2_000; i++) {
      refusedRequest = { name: `Rex ${i}`, key: `fill-${i}` };
      const response = await createPet(refusedRequest.name, refusedRequest.key);
      if (response.status !== 201) {
        refused = response;
        refusedBody = await response.text();
        return;
      }
      await response.arrayBuffer();
    }
    throw new Error('the store never filled');
  }, 60_000);

  it('answers a REST write 503 store_unavailable with Retry-After, not a 500', () => {
    expect([refused.status, refused.headers.get('retry-after'), JSON.parse(refusedBody)]).toEqual([
      503,
      '10',
      {
        code: 'store_unavailable',
        message: 'The event store cannot take this request right now; retry it after 10 s (Retry-After).',
        status: 503,
      },
    ]);
  });

  it('answers it as the OpenAPI document describes it', () => {
    const response = {
      statusCode: refused.status,
      body: refusedBody,
      headers: Object.fromEntries(refused.headers),
    };
    expect(openApiMismatches('POST', '/pets', response)).toEqual([]);
  });

  it('answers a GraphQL write with the code store_unavailable in extensions, and Retry-After', async () => {
    const response = await graphql(
      'mutation { createPet(input: { name: "Rex", categoryId: 1 }) { ... on Pet { id } } }',
    );
    const body = (await response.json()) as {
      data: unknown;
      errors: { message: string; extensions: unknown }[];
    };
    expect([response.headers.get('retry-after'), body.data, body.errors]).toEqual([
      '10',
      { createPet: null },
      [
        {
          message: 'The event store cannot take this request right now; retry it after 10 s (Retry-After).',
          path: ['createPet'],
          extensions: { code: 'store_unavailable' },
        },
      ],
    ]);
  });

  it('is not ready, and says why', async () => {
    const response = await fetch(`${server.url}/health/ready`);
    expect([response.status, await response.json()]).toEqual([
      503,
      {
        code: 'not_ready',
        message: 'Not ready: the event store refuses writes: its disk is full.',
        status: 503,
      },
    ]);
  });

  it('logs the refusal once, naming its cause, and no refused write as an unexpected error', () => {
    const lines = server.output.filter(
      (line) => line.includes('refuses writes') || line.includes('unexpected'),
    );
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 40,
      reason: 'disk_full',
      detail: `the disk holding ${temp.dir} is full (SQLite: database or disk is full)`,
    });
  });

  describe('once pages are freed', () => {
    beforeAll(() => ballast.exec('DELETE FROM ballast'));

    it('is ready again, with no write in between', async () => {
      const response = await fetch(`${server.url}/health/ready`);
      expect([response.status, await response.json()]).toEqual([200, { status: 'ok' }]);
    });

    it('creates the pet a refused request asked for when it is retried with its Idempotency-Key', async () => {
      const retried = await createPet(refusedRequest.name, refusedRequest.key);
      expect(retried.status).toBe(201);
      expect(await retried.json()).toMatchObject({ name: refusedRequest.name, categoryId: 1 });
    });
  });
});
