import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Two server processes on one store: a write through one, then a read through the other with the
 * write's position, sees the write every time. Without the position the second process answers
 * from its read model as it stands, which may not have the write yet.
 */

const ROUNDS = 40;
let temp: ReturnType<typeof makeTempDir>;
let writer: ServerProcess;
let reader: ServerProcess;
let headers: Record<string, string>;

beforeAll(async () => {
  temp = makeTempDir();
  const env = { PETSTORE_DATA_DIR: temp.dir };
  [writer, reader] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  headers = { authorization: `Bearer ${createApiKey(env)}`, 'content-type': 'application/json' };
});
afterAll(async () => {
  await Promise.all([writer?.kill(), reader?.kill()]);
  temp?.remove();
});

describe('a write through one process, read through another with its position', () => {
  it('POST then GET: the new pet, every time', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const created = await fetch(`${writer.url}/v1/pets`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Round ${round}`, categoryId: 1, status: 'available' }),
      });
      const pet = (await created.json()) as { id: number };
      const position = created.headers.get('x-store-position');
      expect(position).toMatch(/^\d+$/);
      const read = await fetch(`${reader.url}/v1/pets/${pet.id}`, {
        headers: { ...headers, 'x-min-position': position! },
      });
      expect([read.status, await read.json()]).toEqual([200, pet]);
    }
  });

  it('PATCH then GET: the change, every time', async () => {
    const created = await fetch(`${writer.url}/v1/pets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Changing', categoryId: 1 }),
    });
    const { id } = (await created.json()) as { id: number };
    for (let round = 0; round < ROUNDS; round++) {
      const changed = await fetch(`${writer.url}/v1/pets/${id}`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify({ name: `Name ${round}` }),
      });
      const read = await fetch(`${reader.url}/v1/pets/${id}`, {
        headers: { ...headers, 'x-min-position': changed.headers.get('x-store-position')! },
      });
      const { name } = (await read.json()) as { name: string };
      expect([name, read.headers.get('etag')]).toEqual([`Name ${round}`, `"${round + 1}"`]);
    }
  });

  it('a GraphQL mutation then a GraphQL query: the new pet, every time', async () => {
    const graphql = (url: string, query: string, extra: Record<string, string> = {}) =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...headers, ...extra },
        body: JSON.stringify({ query }),
      });
    for (let round = 0; round < ROUNDS / 2; round++) {
      const created = (await (
        await graphql(
          writer.url,
          `mutation { createPet(input: { name: "Gql ${round}", categoryId: 2 }) { ... on Pet { id } } }`,
        )
      ).json()) as { data: { createPet: { id: number } }; extensions: { storePosition: string } };
      const { id } = created.data.createPet;
      const read = (await (
        await graphql(reader.url, `{ pet(id: ${id}) { id name } }`, {
          'x-min-position': created.extensions.storePosition,
        })
      ).json()) as unknown;
      expect(read).toEqual({ data: { pet: { id, name: `Gql ${round}` } } });
    }
  });
});
