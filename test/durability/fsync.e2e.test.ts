import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey, startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { requiredTool } from '../support/required-tool.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * SIGKILL cannot show that a write reached the disk rather than the OS cache (the cache survives
 * the process). strace can: it records, in order, every fsync and every response the server
 * writes, so each 201 must come after an fsync that followed the previous 201.
 */
const available = requiredTool('strace', ['-V'], 'apt-get install strace');

const temp = makeTempDir();
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.kill('SIGKILL');
  temp.remove();
});

describe.runIf(available)('durability on disk', () => {
  it('fsyncs before every 201 it sends', async () => {
    const trace = path.join(temp.dir, 'strace.txt');
    const key = createApiKey({ PETSTORE_DATA_DIR: path.join(temp.dir, 'data') });
    server = await startServerProcess(
      { PETSTORE_DATA_DIR: path.join(temp.dir, 'data') },
      {
        wrapper: [
          'strace',
          '-f',
          '-qq',
          '-e',
          'trace=fsync,fdatasync,write,writev',
          '-e',
          'signal=none',
          '-s',
          '16',
          '-o',
          trace,
        ],
      },
    );
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${server.url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 }),
      });
      expect(response.status).toBe(201);
    }
    // Kill the traced server itself: strace then exits and flushes its log.
    const exited = once(server.child, 'exit');
    execFileSync('pkill', ['-KILL', '-P', String(server.child.pid)]);
    await exited;

    const events = readFileSync(trace, 'utf8')
      .split('\n')
      .map((line) =>
        /\b(fsync|fdatasync)\(/.test(line) ? 'sync' : line.includes('HTTP/1.1 201') ? '201' : undefined,
      )
      .filter((event) => event !== undefined);
    const unsynced = events.filter((event, i) => event === '201' && (i === 0 || events[i - 1] !== 'sync'));
    expect(events.filter((e) => e === '201')).toHaveLength(20);
    expect(unsynced).toEqual([]);
  });
});
