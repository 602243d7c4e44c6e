import { afterAll, beforeAll, expect, it } from 'vitest';
import { petstore } from '../support/cli.ts';
import { seedDataDir } from '../support/seed-store.ts';
import { createScopedApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * A rebuild of the pet list while a real server serves steady traffic (reads of pages and of
 * single pets, and writes): not one request fails, and afterwards the server answers exactly what
 * it answered before, with the pets created meanwhile.
 */

const SEEDED = 100_000;
let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  temp = makeTempDir();
  await seedDataDir(temp.dir, SEEDED);
  server = await startServerProcess({ PETSTORE_DATA_DIR: temp.dir });
  key = createScopedApiKey({ PETSTORE_DATA_DIR: temp.dir }, ['admin', 'pets:read', 'pets:write']);
}, 120_000);
afterAll(async () => {
  await server?.kill();
  temp?.remove();
});

type Pet = { id: number; name: string; categoryId: number; status?: string };

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });
}

/** Every pet, page after page. */
async function catalogue(): Promise<Pet[]> {
  const pets: Pet[] = [];
  for (let after = 0; ;) {
    const page = (await (await call(`/v1/pets?limit=100&after=${after}`)).json()) as Pet[];
    pets.push(...page);
    if (page.length < 100) return pets;
    after = page.at(-1)!.id;
  }
}

it('serves every request through a rebuild, and answers the same after the swap', async () => {
  const before = await catalogue();
  const failures: string[] = [];
  const created: Pet[] = [];
  let served = 0;
  let rebuilding = false;
  let servedDuringRebuild = 0;
  let stop = false;
  const record = async (
    what: string,
    response: Promise<Response>,
    check: (response: Response) => Promise<void>,
  ) => {
    try {
      const answered = await response;
      if (!answered.ok) failures.push(`${what}: ${answered.status} ${await answered.text()}`);
      else await check(answered);
      served += 1;
      if (rebuilding) servedDuringRebuild += 1;
    } catch (error) {
      failures.push(`${what}: ${String(error)}`);
    }
  };
  const reader = async () => {
    while (!stop) {
      const id = 1 + Math.floor(Math.random() * SEEDED);
      await record(`GET /v1/pets/${id}`, call(`/v1/pets/${id}`), async (response) => {
        const pet = (await response.json()) as Pet;
        if (pet.name !== `Pet ${id}`) failures.push(`GET /v1/pets/${id}: ${JSON.stringify(pet)}`);
      });
      await record('GET /v1/pets', call(`/v1/pets?limit=100&after=${id}`), async (response) => {
        const page = (await response.json()) as Pet[];
        if (page[0]?.id !== id + 1) failures.push(`GET /v1/pets?after=${id}: starts at ${page[0]?.id}`);
      });
    }
  };
  const writer = async () => {
    while (!stop) {
      await record(
        'POST /v1/pets',
        call('/v1/pets', { method: 'POST', body: JSON.stringify({ name: 'New', categoryId: 9 }) }),
        async (response) => {
          created.push((await response.json()) as Pet);
        },
      );
    }
  };
  const traffic = [reader(), reader(), writer()];
  await new Promise((resolve) => setTimeout(resolve, 300));

  rebuilding = true;
  const rebuild = await petstore(temp.dir, ['projections', 'rebuild', 'pet-list', '--url', server.url], {
    PETSTORE_API_KEY: key,
  });
  rebuilding = false;
  await new Promise((resolve) => setTimeout(resolve, 300));
  stop = true;
  await Promise.all(traffic);

  expect(rebuild).toMatchObject({
    code: 0,
    stdout: expect.stringContaining('swapped in for the live read model'),
  });
  expect(failures).toEqual([]);
  expect(servedDuringRebuild).toBeGreaterThan(0);
  expect(served).toBeGreaterThan(servedDuringRebuild);
  const [status] = (await (await call('/v1/admin/projections')).json()) as {
    rebuild: { state: string; events: number };
  }[];
  expect(status!.rebuild).toMatchObject({ state: 'done', events: expect.any(Number) });
  expect(status!.rebuild.events).toBeGreaterThan(SEEDED);
  expect(await catalogue()).toEqual([...before, ...created].sort((a, b) => a.id - b.id));
}, 120_000);
