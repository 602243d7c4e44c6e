import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPetstore } from '../../bench/servers.ts';
import { createApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * The bundle of `npm run build` (rolldown.config.ts), which the container image runs: built here
 * from the sources into a directory of its own, then started as a real process. Inside the project,
 * so that what it still reads from node_modules (Swagger UI's files, the KurrentDB client) is found
 * as it is in the image.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const OUT = path.join(ROOT, '.cache', `bundle-test-${process.pid}`);
const ENTRY = path.join(OUT, 'petstore.js');
/** The compile cache would otherwise go beside the bundle's parent (see bin/petstore.js). */
const ENV = { NODE_DISABLE_COMPILE_CACHE: '1' };

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess | undefined;
let secret: string;

beforeAll(() => {
  buildPetstore(OUT);
  temp = makeTempDir('petstore-bundle-');
  secret = createApiKey({ ...ENV, PETSTORE_DATA_DIR: temp.dir }, undefined, ENTRY);
});

afterEach(async () => {
  await server?.kill();
  server = undefined;
});

afterAll(() => {
  temp.remove();
  rmSync(OUT, { recursive: true, force: true });
});

function start(args: readonly string[] = []): Promise<ServerProcess> {
  return startServerProcess({ ...ENV, PETSTORE_DATA_DIR: temp.dir }, { entry: ENTRY, args });
}

async function call(method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server!.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('the bundle of npm run build', () => {
  it('holds the service and its writer thread as entries of their own', () => {
    expect(existsSync(ENTRY)).toBe(true);
    expect(existsSync(path.join(OUT, 'sqlite-writer-worker.js'))).toBe(true);
  });

  it('creates a pet through its writer thread and serves it over REST and GraphQL', async () => {
    server = await start();
    const created = await call('POST', '/v1/pets', { name: 'Bundle', categoryId: 2, status: 'available' });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: number };
    expect(await call('GET', `/v1/pets/${id}`)).toEqual({
      status: 200,
      body: { id, name: 'Bundle', categoryId: 2, status: 'available' },
    });
    expect(await call('POST', '/graphql', { query: `{ pet(id: ${id}) { name } }` })).toEqual({
      status: 200,
      body: { data: { pet: { name: 'Bundle' } } },
    });
  });

  it('keeps a pet it acknowledged across kill -9', async () => {
    server = await start();
    const created = await call('POST', '/v1/pets', { name: 'Durable', categoryId: 1 });
    expect(created.status).toBe(201);
    await server.kill('SIGKILL');
    server = await start();
    const { id } = created.body as { id: number };
    expect((await call('GET', `/v1/pets/${id}`)).body).toMatchObject({ id, name: 'Durable' });
  });

  it('serves the API reference with Swagger UI read from node_modules', async () => {
    server = await start();
    const page = await (await fetch(`${server.url}/docs`)).text();
    const script = /src="(\/docs\/assets\/[^"]+\/swagger-ui-bundle\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });

  it('starts two worker processes from the bundle with --workers 2', async () => {
    server = await start(['--workers', '2']);
    const created = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Worker', categoryId: 3 }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    // The read may reach the other worker: it waits for the write's position, as a client would.
    const position = created.headers.get('x-store-position')!;
    const read = await call('GET', `/v1/pets/${id}`, undefined, { 'x-min-position': position });
    expect(read.status).toBe(200);
  });
});
