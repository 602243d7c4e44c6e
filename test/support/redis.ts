import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { canRun, commandMissing } from './availability.ts';
import { makeTempDir } from './temp-dir.ts';
import { freePort } from './free-port.ts';

/**
 * A real Redis for tests: by default a `redis-server` process (Debian's package, installed by
 * .ci/install-services.sh) on a free loopback port with its own temp dir; with
 * TEST_REDIS=testcontainers, a container (for people with Docker). Under CI=true a missing
 * redis-server fails the test run instead of skipping it.
 */
export type RedisServer = {
  readonly url: string;
  readonly kind: 'process' | 'testcontainers';
  /** Kills Redis at once (SIGKILL), as a crash would. Process kind only. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. Process kind only. */
  restart(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Whether a Redis suite can run here: it says why not on one line and is skipped, or under CI=true
 * fails (see availability.ts). With TEST_REDIS=testcontainers the container is started as asked.
 */
export function canRunRedis(
  suite: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (env.TEST_REDIS === 'testcontainers') return true;
  return canRun(suite, commandMissing('redis-server', ['--version']), { env });
}

export async function startRedis(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<RedisServer> {
  if (env.TEST_REDIS === 'testcontainers') return startRedisContainer();
  const temp = makeTempDir('petstore-redis-');
  const port = await freePort();
  let child = await spawnRedis(port, temp.dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    kind: 'process',
    async kill() {
      await killChild(child, 'SIGKILL');
    },
    async restart() {
      child = await spawnRedis(port, temp.dir);
    },
    async stop() {
      await killChild(child, 'SIGTERM');
      temp.remove();
    },
  };
}

async function spawnRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.stdout!.resume();
  return child;
}

async function killChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

async function startRedisContainer(): Promise<RedisServer> {
  const { RedisContainer } = await import('@testcontainers/redis');
  const container = await new RedisContainer('redis:7-alpine').start();
  const unsupported = async () => {
    throw new Error('killing and restarting Redis needs TEST_REDIS unset (a redis-server process)');
  };
  return {
    url: container.getConnectionUrl(),
    kind: 'testcontainers',
    kill: unsupported,
    restart: unsupported,
    async stop() {
      await container.stop();
    },
  };
}
