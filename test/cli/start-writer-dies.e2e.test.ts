import { once } from 'node:events';
import { expect, it } from 'vitest';
import { createApiKey, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * A server whose embedded store's writer thread ends (PETSTORE_FAILPOINT=writer-exits, as a bug in
 * it would): no later write could succeed in this process, while it stayed live and ready. It
 * answers the write that found it with a 500, then stops with status 1, so that its supervisor (or
 * the primary of --workers) starts it again.
 */

it('stops with status 1 and a fatal line once a write finds the store’s writer thread gone, after answering that write 500', async () => {
  const temp = makeTempDir('petstore-writer-dies-');
  const env = { PETSTORE_DATA_DIR: temp.dir };
  const secret = createApiKey(env);
  const server = await startServerProcess({ ...env, PETSTORE_FAILPOINT: 'writer-exits' });
  try {
    const exited = once(server.child, 'exit');
    const response = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect([response.status, (await response.json()) as unknown]).toEqual([
      500,
      {
        code: 'internal_error',
        message: 'The server failed to handle the request. It has been logged.',
        status: 500,
      },
    ]);
    expect(await exited).toEqual([1, null]);
    const fatal = server.output
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 60);
    expect(fatal.map((line) => line.msg)).toEqual([
      'the event store cannot be written by this process any more: stopping, with status 1, so that a restart brings it back',
    ]);
  } finally {
    await server.kill(); // the process has exited when the test passes
    temp.remove();
  }
}, 30_000);
