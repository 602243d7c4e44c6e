import { spawn } from 'node:child_process';
import path from 'node:path';

export const PETSTORE_BIN = path.resolve(import.meta.dirname, '../../bin/petstore.js');

export type CliRun = { readonly code: number | null; readonly stdout: string; readonly stderr: string };

/**
 * Runs `petstore …` as a real child process, as an operator would, and resolves when it exits,
 * whatever its status. `cwd` defaults to a directory of the caller's choosing: pass it explicitly
 * when the store location matters.
 */
export function runPetstore(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    cwd?: string;
    timeoutMs?: number;
    /** Run as this user and group (the test must run as root to ask for it). */
    user?: { readonly uid: number; readonly gid: number };
    /** A command that runs Node in its place, its arguments first (`prlimit --nofile=30:30`). */
    through?: readonly [string, ...string[]];
  } = {},
): Promise<CliRun> {
  const [command, ...before] = options.through ?? [process.execPath];
  const node = options.through === undefined ? [] : [process.execPath];
  const child = spawn(command, [...before, ...node, PETSTORE_BIN, ...args], {
    cwd: options.cwd ?? path.dirname(PETSTORE_BIN),
    ...options.user,
    env: { ...process.env, LOG_LEVEL: 'silent', NODE_ENV: 'test', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
