import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey, startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { canRun, commandMissing } from '../support/availability.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * SIGKILL cannot show that a write reached the disk rather than the OS cache (the cache survives
 * the process). strace can: it records, in order, every fsync and every response the server
 * writes, so each 201 must come after an fsync that followed the previous 201.
 */
const available = canRun('Durability on disk, traced', commandMissing('strace', ['-V']));

const temp = makeTempDir();
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.kill('SIGKILL');
  temp.remove();
});

describe.runIf(available)('durability on disk', () => {
  it('writes the event and fsyncs it before every 201 it sends', async () => {
    const trace = path.join(temp.dir, 'strace.txt');
    const key = createApiKey({ PETSTORE_DATA_DIR: path.join(temp.dir, 'data') });
    server = await startServerProcess(
      { PETSTORE_DATA_DIR: path.join(temp.dir, 'data') },
      {
        wrapper: [
          'strace',
          '-f',
          '-qq',
          '-y', // names the file of every descriptor: the event store's among the others
          '-e',
          'trace=fsync,fdatasync,pwrite64,write,writev',
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

    // In order: the event store's WAL writes (pwrite64) and fsyncs, and the 201s sent. Other files
    // (the temporal index, which may lag and is rebuilt from the store) are not the store.
    const store = (line: string) => /<[^>]*\/events\.sqlite(-wal)?>/.test(line);
    const events = readFileSync(trace, 'utf8')
      .split('\n')
      .map((line) =>
        /\b(fsync|fdatasync)\(/.test(line) && store(line)
          ? 'sync'
          : /\bpwrite64\(/.test(line) && store(line)
            ? 'write'
            : line.includes('HTTP/1.1 201')
              ? '201'
              : undefined,
      )
      .filter((event) => event !== undefined);
    // Each 201 must follow a write that was then fsynced, all since the previous 201: a server that
    // answered first and synced after would leave its last write unsynced when the 201 goes out.
    const answered = events.flatMap((event, i) => (event === '201' ? [i] : []));
    const unsynced = answered.filter((at, k) => {
      const since = events.slice(k === 0 ? 0 : answered[k - 1]! + 1, at);
      const lastWrite = since.lastIndexOf('write');
      return lastWrite === -1 || !since.slice(lastWrite).includes('sync');
    });
    expect(answered).toHaveLength(20);
    expect(unsynced).toEqual([]);
  });
});
