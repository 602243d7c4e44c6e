import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { petstore, petstoreKeys } from '../support/cli.ts';
import { PETSTORE_BIN } from '../support/petstore-cli.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * `petstore …` whose stdout cannot be written: to a full device (/dev/full), or to a pipe whose
 * reader has gone. One line on stderr and status 1, never a stack trace, and no key left working
 * whose secret nobody saw.
 */

let temp: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  temp = makeTempDir();
  await petstoreKeys(temp.dir, 'create', '--plan', 'free', '--name', 'seen');
});
afterAll(() => temp.remove());

type Run = { code: number | null; stderr: string };

/** Runs `petstore <args>` with stdout on /dev/full. */
function toFullDevice(args: readonly string[]): Promise<Run> {
  const full = openSync('/dev/full', 'w');
  const child = spawn(process.execPath, [PETSTORE_BIN, ...args], {
    cwd: path.dirname(PETSTORE_BIN),
    env: { ...process.env, PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', full, 'pipe'],
  });
  closeSync(full);
  return finished(child);
}

/** Runs `petstore <args>` with stdout on a pipe this process closes at once, as `| (exec 0<&-; …)` does. */
function toGoneReader(args: readonly string[]): Promise<Run> {
  const child = spawn(process.execPath, [PETSTORE_BIN, ...args], {
    cwd: path.dirname(PETSTORE_BIN),
    env: { ...process.env, PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.destroy();
  return finished(child);
}

function finished(child: ReturnType<typeof spawn>): Promise<Run> {
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

async function keyStatuses(): Promise<Record<string, string>> {
  const { stdout } = await petstore(temp.dir, ['keys', 'list', '--json']);
  const keys = JSON.parse(stdout) as { name: string; status: string }[];
  return Object.fromEntries(keys.map((key) => [key.name, key.status]));
}

it('events on a full device: one line naming stdout and why, status 1', async () => {
  const { code, stderr } = await toFullDevice(['events']);
  expect([code, stderr]).toEqual([
    1,
    `petstore events: store ${temp.dir}/events.sqlite\n` +
      'petstore events: cannot write to stdout: no space left on the device\n',
  ]);
});

it('--version on a full device: one line, status 1', async () => {
  const { code, stderr } = await toFullDevice(['--version']);
  expect([code, stderr]).toEqual([1, 'petstore: cannot write to stdout: no space left on the device\n']);
});

it('keys create on a full device revokes the key whose secret it could not write, and says so, status 1', async () => {
  const { code, stderr } = await toFullDevice(['keys', 'create', '--plan', 'free', '--name', 'full']);
  const keyId = /key (key_[0-9a-f]+) was stored/.exec(stderr)?.[1];
  expect([code, stderr.split('\n')[1]]).toEqual([
    1,
    `petstore keys create: key ${keyId} was stored but its secret could not be written to stdout (no space left on the device): it has been revoked`,
  ]);
  expect((await keyStatuses()).full).toBe('revoked');
});

it('keys create into a pipe whose reader has gone revokes the key, instead of exiting 0 with "Keep the key now"', async () => {
  const { code, stderr } = await toGoneReader(['keys', 'create', '--plan', 'free', '--name', 'gone']);
  const keyId = /key (key_[0-9a-f]+) was stored/.exec(stderr)?.[1];
  expect([code, stderr.split('\n')[1]]).toEqual([
    1,
    `petstore keys create: key ${keyId} was stored but its secret could not be written to stdout (the reader has gone): it has been revoked`,
  ]);
  expect((await keyStatuses()).gone).toBe('revoked');
});

it('keys rotate on a full device says the new secret is lost and until when the old one works, status 1', async () => {
  const { stdout } = await petstore(temp.dir, ['keys', 'list', '--json']);
  const { keyId } = (JSON.parse(stdout) as { keyId: string; name: string }[]).find(
    (key) => key.name === 'seen',
  )!;
  const { code, stderr } = await toFullDevice(['keys', 'rotate', keyId, '--grace', '2h']);
  const until = /works until (\S+);/.exec(stderr)?.[1];
  expect(Date.parse(until!) - Date.now()).toBeGreaterThan(7_100_000);
  expect([code, stderr.split('\n')[1]]).toEqual([
    1,
    `petstore keys rotate: key ${keyId} was rotated but its new secret could not be written to stdout (no space left on the device): the old key works until ${until}; petstore keys rotate ${keyId} gives another (and ends the old key at once)`,
  ]);
});

it('a warning a library raises (kafkajs’s TimeoutNegativeWarning) is one line on stderr, not a stack trace', async () => {
  const warn =
    'setTimeout(() => process.emitWarning("-1795755330859 is a negative number.\\nTimeout duration was set to 1.", "TimeoutNegativeWarning"), 200)';
  const child = spawn(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(warn)}`, PETSTORE_BIN, 'events', '--follow'],
    {
      cwd: path.dirname(PETSTORE_BIN),
      env: { ...process.env, PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await expect.poll(() => stderr.includes('Warning'), { timeout: 10_000 }).toBe(true);
  child.kill('SIGTERM');
  await finished(child);
  expect(stderr.split('\n').filter((line) => line.includes('Warning') || line.includes(' at '))).toEqual([
    'petstore: warning: TimeoutNegativeWarning: -1795755330859 is a negative number. Timeout duration was set to 1.',
  ]);
});
