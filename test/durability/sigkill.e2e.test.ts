import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey, startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

const temp = makeTempDir();
const servers: ServerProcess[] = [];
const key = createApiKey({ PETSTORE_DATA_DIR: temp.dir });
const auth = { authorization: `Bearer ${key}` };
afterAll(async () => {
  await Promise.all(servers.map((s) => s.kill('SIGKILL')));
  temp.remove();
});

async function start(): Promise<ServerProcess> {
  const server = await startServerProcess({ PETSTORE_DATA_DIR: temp.dir });
  servers.push(server);
  return server;
}

/** Writers post pets until the server dies, recording every pet the server acknowledged with 201. */
async function writeUntilKilled(
  url: string,
  writers: number,
  acknowledged: Map<number, unknown>,
): Promise<void> {
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let i = 0; ; i++) {
        const body = { name: `w${writer}-${i}`, categoryId: writer + 1, status: 'available' };
        try {
          const response = await fetch(`${url}/v1/pets`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          if (response.status !== 201)
            throw new Error(`unexpected ${response.status}: ${await response.text()}`);
          const pet = (await response.json()) as { id: number };
          acknowledged.set(pet.id, pet);
        } catch (error) {
          if (error instanceof TypeError) return; // the connection died with the server
          throw error;
        }
      }
    }),
  );
}

describe('durability', () => {
  it('keeps every acknowledged pet when the server is killed with SIGKILL mid-stream', async () => {
    const first = await start();
    const acknowledged = new Map<number, unknown>();
    const writing = writeUntilKilled(first.url, 16, acknowledged);
    while (acknowledged.size < 500) await new Promise((resolve) => setTimeout(resolve, 5));
    await first.kill('SIGKILL');
    await writing;

    const second = await start();
    const missing: number[] = [];
    for (const [id, pet] of acknowledged) {
      const response = await fetch(`${second.url}/v1/pets/${id}`, { headers: auth });
      if (response.status !== 200 || JSON.stringify(await response.json()) !== JSON.stringify(pet))
        missing.push(id);
    }
    expect(acknowledged.size).toBeGreaterThanOrEqual(500);
    expect(missing).toEqual([]);

    const after = await fetch(`${second.url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'after restart', categoryId: 1 }),
    });
    expect(acknowledged.has(((await after.json()) as { id: number }).id)).toBe(false);
  });
});
