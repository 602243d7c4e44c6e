import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PETSTORE_BIN } from '../support/petstore-cli.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * The server's log format as an operator meets it: JSON lines into a pipe (a collector), pretty
 * lines on a terminal in development. The terminal is a real pseudo-terminal (util-linux `script`).
 */

let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => temp?.remove());

/** Runs `petstore start` until it listens, then stops it; resolves everything it printed on stdout. */
async function startOutput(env: Record<string, string>, onTerminal = false): Promise<string> {
  temp = makeTempDir('petstore-logs-');
  const command = `${process.execPath} ${PETSTORE_BIN} start --port 0 --data-dir ${temp.dir}`;
  const [file, args] = onTerminal
    ? ['script', ['-qfec', command, '/dev/null']]
    : [process.execPath, command.split(' ').slice(1)];
  const child = spawn(file, args as string[], {
    cwd: path.dirname(PETSTORE_BIN),
    // One process: the log format is the same under --workers (production's default), and one
    // process keeps the start and stop of this test short on a busy machine.
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: '', WORKERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  const listening = new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('pet store listening')) resolve();
    }),
  );
  await Promise.race([listening, once(child, 'exit')]);
  child.kill('SIGTERM');
  await once(child, 'close');
  return stdout;
}

describe('the server log', () => {
  it('is JSON lines into a pipe, even in development', async () => {
    const stdout = await startOutput({ NODE_ENV: 'development' });
    const listening = stdout.split('\n').find((line) => line.includes('pet store listening'))!;
    expect(JSON.parse(listening)).toMatchObject({ level: 30, msg: 'pet store listening' });
  });

  it('is pretty on a terminal in development', async () => {
    const stdout = await startOutput({ NODE_ENV: 'development' }, true);
    expect(stdout).toMatch(/\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*pet store listening/);
    expect(stdout).not.toContain('"msg":"pet store listening"');
  });

  it('is JSON on a terminal in production', async () => {
    const stdout = await startOutput({ NODE_ENV: 'production' }, true);
    expect(stdout).toContain('"msg":"pet store listening"');
  });

  it('follows LOG_FORMAT=pretty whatever the output', async () => {
    const stdout = await startOutput({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' });
    expect(stdout).toMatch(/INFO.*: pet store listening/);
  });
});
