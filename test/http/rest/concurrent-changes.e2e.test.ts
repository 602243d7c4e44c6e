import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, send } from '../../support/http-client.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { createApiKey, type ServerProcess, startServerProcess } from '../../support/server-process.ts';
import { makeTempDir } from '../../support/temp-dir.ts';

/**
 * Optimistic concurrency with real parallel requests: clients that PATCH one pet with the same
 * If-Match at the same moment. The store's expected-revision check on append decides, so exactly
 * one wins, within one process and across two processes sharing the store.
 */

const ROUNDS = 10;
const CLIENTS = 6;

/** Each round, every client renames the pet at once, all with the same If-Match; returns the statuses per round. */
async function race(clients: readonly Client[], id: number): Promise<number[][]> {
  const rounds: number[][] = [];
  let etag = (await send(clients[0]!, 'GET', `/v1/pets/${id}`)).headers.get('etag')!;
  for (let round = 0; round < ROUNDS; round++) {
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        send(
          clients[i % clients.length]!,
          'PATCH',
          `/v1/pets/${id}`,
          { name: `Round ${round} client ${i}` },
          {
            'if-match': etag,
          },
        ),
      ),
    );
    rounds.push(answers.map((answer) => answer.status).sort());
    etag = answers.find((answer) => answer.status === 200)?.headers.get('etag') ?? etag;
  }
  return rounds;
}

const oneWinnerEachRound = Array.from({ length: ROUNDS }, () => [
  200,
  ...Array<number>(CLIENTS - 1).fill(412),
]);

describe('concurrent PATCHes in one process', () => {
  let t: TestApp;
  let client: Client;
  beforeAll(async () => {
    t = await startTestApp();
    client = { url: await t.app.listen({ port: 0, host: '127.0.0.1' }) };
  });
  afterAll(() => t.close());

  it('with the same If-Match let exactly one client win each round, and record exactly its change', async () => {
    const id = (await send(client, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 })).body.id as number;
    expect(await race([client], id)).toEqual(oneWinnerEachRound);
    expect(await t.store.readStream(`pet-${id}`)).toHaveLength(1 + ROUNDS);
  });

  it('without If-Match apply every one of 20 renames sent at once to one pet, each on the pet as it is then', async () => {
    const id = (await send(client, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 })).body.id as number;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(client, 'PATCH', `/v1/pets/${id}`, { name: `Name ${i}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array<number>(20).fill(200));
    expect(await t.store.readStream(`pet-${id}`)).toHaveLength(21);
  });
});

describe('concurrent PATCHes with the same If-Match through two server processes on one store', () => {
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

  it('let exactly one win each round: the store decides, not either process’s memory', async () => {
    const id = (await send(clients[0]!, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 })).body
      .id as number;
    await expect.poll(async () => (await send(clients[1]!, 'GET', `/v1/pets/${id}`)).status).toBe(200);
    expect(await race(clients, id)).toEqual(oneWinnerEachRound);
  });

  it('apply every one of 100 renames sent at once to one pet through both processes, none a 500', async () => {
    const id = (await send(clients[0]!, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 })).body
      .id as number;
    await expect.poll(async () => (await send(clients[1]!, 'GET', `/v1/pets/${id}`)).status).toBe(200);
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          send(clients[i % 2]!, 'PATCH', `/v1/pets/${id}`, { name: `Round ${round} client ${i}` }),
        ),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await expect
      .poll(async () => (await send(clients[0]!, 'GET', `/v1/pets/${id}`)).headers.get('etag'))
      .toBe('"300"');
  });
});
