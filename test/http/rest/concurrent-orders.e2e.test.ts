import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, send } from '../../support/http-client.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { createApiKey, type ServerProcess, startServerProcess } from '../../support/server-process.ts';
import { makeTempDir } from '../../support/temp-dir.ts';

/**
 * Two aggregates, one outcome: clients ordering the same pet at the same moment, with real parallel
 * requests. The atomic append to the order's and the pet's streams, with the pet's revision as the
 * expected one, lets exactly one through; the others find the pet pending.
 */

const PETS = 8;
const CLIENTS = 5;

/** For each of several pets, every client orders it at once; returns the statuses per pet and the pets. */
async function race(clients: readonly Client[]): Promise<{ statuses: number[][]; petIds: number[] }> {
  const statuses: number[][] = [];
  const petIds: number[] = [];
  for (let i = 0; i < PETS; i++) {
    const pet = await send(clients[0]!, 'POST', '/v1/pets', {
      name: `Race ${i}`,
      categoryId: 1,
      status: 'available',
    });
    const petId = pet.body.id as number;
    petIds.push(petId);
    await expect.poll(async () => (await send(clients.at(-1)!, 'GET', `/v1/pets/${petId}`)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, c) =>
        send(clients[c % clients.length]!, 'POST', '/v1/store/orders', { petId }),
      ),
    );
    statuses.push(answers.map((answer) => answer.status).sort());
  }
  return { statuses, petIds };
}

const oneOrderPerPet = Array.from({ length: PETS }, () => [201, ...Array<number>(CLIENTS - 1).fill(409)]);

describe('ordering one pet from several clients at once, in one process', () => {
  let t: TestApp;
  let client: Client;
  beforeAll(async () => {
    t = await startTestApp();
    client = { url: await t.app.listen({ port: 0, host: '127.0.0.1' }) };
  });
  afterAll(() => t.close());

  it('places exactly one order per pet; the others get 409 pet_not_available', async () => {
    const { statuses, petIds } = await race([client]);
    expect(statuses).toEqual(oneOrderPerPet);
    for (const petId of petIds) {
      const changes = (await t.store.readStream(`pet-${petId}`)).filter(
        (event) => event.type === 'PetStatusChanged',
      );
      expect(changes).toHaveLength(1);
    }
  });
});

describe('ordering one pet from several clients at once, through two server processes on one store', () => {
  const temp = makeTempDir();
  let servers: ServerProcess[] = [];
  let clients: Client[];
  beforeAll(async () => {
    const env = { PETSTORE_DATA_DIR: temp.dir };
    const secret = createApiKey(env);
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    clients = servers.map((server) => ({ url: server.url, secret }));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    temp.remove();
  });

  it('places exactly one order per pet: the store decides, not either process’s memory', async () => {
    expect((await race(clients)).statuses).toEqual(oneOrderPerPet);
  });
});
