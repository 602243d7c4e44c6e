import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BaselineBodies } from './baseline-server.ts';
import { type Child, spawnUntil } from './child-process.ts';
import { type Machine, onEveryCpu, onServerCpu } from './machine.ts';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** Where the benchmark builds the bundle that production runs (`npm run build`, rolldown.config.ts). */
const BUILD_DIR = path.join(ROOT, '.cache', 'bench-build');
/** The `petstore` command every figure measures: the bundle, as the container image runs it. */
export const PETSTORE_BIN = path.join(BUILD_DIR, 'petstore.js');

/**
 * Builds the bundle of `npm run build` into `dir` (by default where PETSTORE_BIN is) from the
 * sources as they are now, so that no figure measures an older build.
 */
export function buildPetstore(dir = BUILD_DIR): void {
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/rolldown/bin/cli.mjs'), '-c', '-d', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export type RunningServer = { readonly url: string; readonly process: Child };

/**
 * Environment of every pet store the benchmark starts: production mode, the embedded store, one
 * process (production's default is one worker per core; the workers figure asks for its own).
 */
export function petstoreEnv(dataDir: string, port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    WORKERS: '1',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(port),
    PETSTORE_DATA_DIR: dataDir,
    // Where `npm start` keeps it: from the build in .cache, bin/petstore.js would make one there.
    NODE_COMPILE_CACHE: path.join(ROOT, 'node_modules/.cache/node-compile-cache'),
  };
}

/**
 * `node PETSTORE_BIN start` on the server core (or, with `allCores`, on every core, for
 * `--workers`), resolved once it listens.
 */
export async function startPetstore(
  machine: Machine,
  dataDir: string,
  timeoutMs = 120_000,
  env: Record<string, string> = {},
  options: { readonly args?: readonly string[]; readonly allCores?: boolean } = {},
): Promise<RunningServer> {
  const nodeArgs = [PETSTORE_BIN, 'start', ...(options.args ?? [])];
  const { process, match } = await spawnUntil(
    options.allCores === true ? onEveryCpu(machine, nodeArgs) : onServerCpu(machine, nodeArgs),
    {
      cwd: ROOT,
      env: { ...petstoreEnv(dataDir, 0), ...env },
      ready: /"msg":"pet store listening".*"url":"([^"]+)"|"url":"([^"]+)".*"msg":"pet store listening"/,
      timeoutMs,
    },
  );
  return { url: (match[1] ?? match[2])!, process };
}

/**
 * The bare Fastify server of bench/baseline-server.ts, serving `bodies`, on the server core, with
 * its ceiling server (the same bytes with the pet store's headers) in the same process.
 */
export async function startBaseline(
  machine: Machine,
  bodies: BaselineBodies,
): Promise<RunningServer & { readonly ceilingUrl: string }> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'petstore-bench-baseline-')), 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  const { process, match } = await spawnUntil(
    onServerCpu(machine, [path.join(ROOT, 'bench/baseline-server.ts'), file]),
    {
      cwd: ROOT,
      env: {},
      ready: /^baseline listening (\S+) (\S+)$/,
      timeoutMs: 30_000,
    },
  );
  return { url: match[1]!, ceilingUrl: match[2]!, process };
}

/** A port that was free a moment ago, for a server whose URL must be known before it logs. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

/** The background catch-up of a 5M-event temporal index takes a while; no run should take this long. */
const CATCH_UP_TIMEOUT_MS = 20 * 60_000;

/**
 * The temporal index catches up in the background after start-up, which would slow the first
 * minute of reads of a fresh server: an as-of read answers only once it has caught up.
 */
export async function waitForTemporalIndex(url: string, authorization: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    const response = await fetch(new URL('/v1/pets?limit=1&asOf=1', url), { headers: { authorization } });
    const body = await response.text();
    if (response.ok) return;
    if (response.status !== 503) throw new Error(`an as-of read answered ${response.status}: ${body}`);
    if (performance.now() - started > CATCH_UP_TIMEOUT_MS)
      throw new Error(`the temporal index did not catch up within ${CATCH_UP_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
