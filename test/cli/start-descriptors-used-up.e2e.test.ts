import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createApiKey, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * A server whose file descriptors are all in use (a flood of connections under a container's
 * `ulimit -n`) before its first write: the embedded store's writer thread, started by that write,
 * could not start (a thread needs descriptors of its own, and so does its connection to the store),
 * and the process took that for a broken store, answered 500 and stopped with status 1. The thread
 * starts with the server, so a shortage later leaves it writing.
 */

it('takes its first write when every file descriptor is in use by then', async () => {
  const temp = makeTempDir('petstore-descriptors-');
  const env = { PETSTORE_DATA_DIR: temp.dir };
  const secret = createApiKey(env);
  const server = await startServerProcess(env);
  try {
    const pid = server.child.pid!;
    // A few to spare for the connection of the request below; none for a thread or a file.
    const limit = readdirSync(`/proc/${pid}/fd`).length + 2;
    execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${limit}:${limit}`]);
    const response = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect([response.status, (await response.json()) as unknown]).toEqual([
      201,
      { id: 1, name: 'Rex', categoryId: 1 },
    ]);
    expect(server.child.exitCode).toBe(null);
  } finally {
    await server.kill();
    temp.remove();
  }
}, 30_000);
