import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export type Child = {
  readonly child: ChildProcess;
  /** Every line it printed, for error messages. */
  readonly output: string[];
  stop(): Promise<void>;
};

/**
 * Spawns a process and resolves once a line of its output matches `ready` (with the match), or
 * rejects with everything it printed if it exits or takes longer than `timeoutMs`.
 */
export async function spawnUntil(
  command: [string, string[]],
  options: { env: Record<string, string>; cwd: string; ready: RegExp; timeoutMs: number },
): Promise<{ process: Child; match: RegExpExecArray }> {
  const child = spawn(command[0], command[1], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const handle: Child = { child, output, stop: () => stopChild(child) };
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const fail = (reason: string) =>
      reject(new Error(`${command[1].join(' ')}: ${reason}\n${output.slice(-30).join('\n')}`));
    const timer = setTimeout(() => {
      fail(`not ready after ${options.timeoutMs} ms`);
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(`exited with ${code ?? signal}`);
    });
    const onLine = (line: string) => {
      output.push(line);
      const found = options.ready.exec(line);
      if (found === null) return;
      clearTimeout(timer);
      resolve(found);
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
  });
  return { process: handle, match };
}

/** SIGTERM, and SIGKILL if it has not exited within 10 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Runs a Node script to completion and returns its stdout; rejects with its stderr on failure. */
export async function runToCompletion(
  command: [string, string[]],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string> {
  const child = spawn(command[0], command[1], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0)
    throw new Error(`${command[1].join(' ')} exited with ${code}:\n${Buffer.concat(stderr).toString()}`);
  return Buffer.concat(stdout).toString();
}
