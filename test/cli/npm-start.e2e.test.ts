import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * `npm start` as an operator runs it: a signal to npm, or Ctrl-C in its terminal (SIGINT to the
 * whole process group), stops the server process too, through its graceful shutdown.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

type NpmStart = { npm: ChildProcess; serverPid: number; logs: Record<string, unknown>[] };

let temp: ReturnType<typeof makeTempDir>;
let running: NpmStart | undefined;
beforeEach(() => {
  temp = makeTempDir('petstore-npm-start-');
});
afterEach(() => {
  if (running !== undefined && isAlive(running.serverPid)) process.kill(running.serverPid, 'SIGKILL');
  running = undefined;
  temp.remove();
});

async function npmStart(): Promise<NpmStart> {
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true, // its own process group, as a terminal gives a foreground job
  });
  const logs: Record<string, unknown>[] = [];
  const serverPid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('npm start did not listen within 30 s')), 30_000);
    createInterface({ input: npm.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'pet store listening') {
        clearTimeout(timer);
        resolve(entry.pid as number);
      }
    });
  });
  running = { npm, serverPid, logs };
  return running;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describe('npm start', () => {
  it('stops the server process, cleanly, when npm gets SIGTERM', async () => {
    const { npm, serverPid, logs } = await npmStart();
    npm.kill('SIGTERM');
    expect(await gone(serverPid, 10_000)).toBe(true);
    expect(logs.map((entry) => entry.msg)).toEqual(
      expect.arrayContaining(['shutting down', 'pet store stopped']),
    );
  });

  it('stops the server process, cleanly, on Ctrl-C (SIGINT to the whole process group)', async () => {
    const { npm, serverPid, logs } = await npmStart();
    process.kill(-npm.pid!, 'SIGINT');
    expect(await gone(serverPid, 10_000)).toBe(true);
    // npm forwards the SIGINT the server also got from the terminal: one shutdown, completed.
    expect(logs.filter((entry) => entry.msg === 'shutting down')).toHaveLength(1);
    expect(logs.at(-1)?.msg).toBe('pet store stopped');
  });
});
