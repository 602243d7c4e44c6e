import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = path.resolve(import.meta.dirname, '../..');

export type ServerProcess = {
  readonly url: string;
  readonly child: ChildProcess;
  /** Every log line the server printed, for failure messages. */
  readonly output: string[];
  kill(signal?: NodeJS.Signals): Promise<void>;
};

/** The `petstore` command from the sources, as `npm start` runs it. */
export const SOURCES_ENTRY = path.join(ROOT, 'bin/petstore.js');

/**
 * Runs `petstore start` as a real child process (Node 24; by default the same entry as `npm start`,
 * or `entry`, the bundle of `npm run build`) on port 0, and resolves with its URL once it listens.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: {
    timeoutMs?: number;
    wrapper?: readonly string[];
    args?: readonly string[];
    entry?: string;
  } = {},
): Promise<ServerProcess> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const [command, ...args] = [
    ...(options.wrapper ?? []),
    process.execPath,
    options.entry ?? SOURCES_ENTRY,
    'start',
    ...(options.args ?? []),
  ];
  const child = spawn(command!, args, {
    cwd: ROOT,
    // One process unless a test asks for --workers (production's default is one per core).
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      WORKERS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start in ${timeoutMs} ms:\n${output.join('\n')}`)),
      timeoutMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output.join('\n')}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      const match = /"msg":"pet store listening"/.test(line) ? /"url":"([^"]+)"/.exec(line) : null;
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  return {
    url,
    child,
    output,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}

/** An enterprise plan whose limits no test reaches. */
const UNLIMITED = ['--plan', 'enterprise', '--per-minute', '10000000', '--per-day', '1000000000'];

/** Issues an API key with `petstore keys create` (a real CLI run) and returns the secret. */
export function createApiKey(
  env: Record<string, string>,
  args: readonly string[] = UNLIMITED,
  entry = SOURCES_ENTRY,
): string {
  const stdout = execFileSync(process.execPath, [entry, 'keys', 'create', ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  return stdout.trim();
}

/** As `createApiKey`, a key of limits no test reaches, with these scopes only. */
export function createScopedApiKey(env: Record<string, string>, scopes: readonly string[]): string {
  return createApiKey(env, [...UNLIMITED, '--scopes', scopes.join(',')]);
}
