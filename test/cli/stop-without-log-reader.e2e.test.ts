import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * A server whose log reader has gone (a `| tee` that ended, a log sidecar or journald restarted)
 * still stops on SIGTERM: its last log lines cannot be written, and must not hold the exit.
 */

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;
beforeAll(async () => {
  temp = makeTempDir();
  server = await startServerProcess({ PETSTORE_DATA_DIR: temp.dir });
});
afterAll(async () => {
  await server.kill('SIGKILL');
  temp.remove();
});

describe('a server whose stdout nobody reads any more', () => {
  it('stops on SIGTERM with status 0, as with a reader', async () => {
    server.child.stdout!.destroy();
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const outcome = await Promise.race([
      exited.then(([code]) => code as number),
      new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000)),
    ]);
    expect(outcome).toBe(0);
  }, 20_000);
});
