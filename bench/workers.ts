import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createApiKey } from './api-key.ts';
import { everyCpu, type Machine } from './machine.ts';
import { childPids, processCpuMs } from './process-cpu.ts';
import { seedDataDir } from './seed.ts';
import { petstoreEnv, ROOT, type RunningServer, startPetstore } from './servers.ts';

/**
 * Every core (issue 16 item 3): `petstore start` with one worker and with two, on every core, read
 * by `wrk` (a light native load generator, Debian's `wrk`) on the same cores, in alternating
 * rounds. Two figures, because the load generator shares the cores with the servers: how many
 * reads each serves, and the servers' CPU time per request (the primary and its workers together),
 * which says whether a worker does more work per request than a lone process, whatever share of
 * the cores the load generator takes.
 */

export type WorkersFigure = {
  readonly workers: number;
  readonly requestsPerSecond: number;
  /** CPU time of every server process (primary and workers) per request, µs. */
  readonly cpuUsPerRequest: number;
  readonly failures: number;
};

export type WorkersRun = {
  readonly path: string;
  readonly connections: number;
  readonly rounds: number;
  readonly seconds: number;
  readonly figures: readonly WorkersFigure[];
  /** Why nothing was measured (no wrk on this machine), when nothing was. */
  readonly missing: string | undefined;
};

export type WorkersOptions = {
  readonly petCount: number;
  readonly rounds: number;
  readonly seconds: number;
  readonly log: (line: string) => void;
};

/** Targets: two workers serve this many times the reads of one… */
export const MIN_READ_SCALING = 1.5;
/** …and spend at most this many times the CPU per request. */
export const MAX_CPU_GROWTH = 1.15;

const PATH = '/v1/pets?limit=20';
const CONNECTIONS = 64;
const run = promisify(execFile);

export async function runWorkersBenchmark(machine: Machine, options: WorkersOptions): Promise<WorkersRun> {
  const base = { path: PATH, connections: CONNECTIONS, rounds: options.rounds, seconds: options.seconds };
  const missing = await run('wrk', ['--version']).then(
    () => undefined,
    (error: NodeJS.ErrnoException & { stdout?: string }) =>
      // wrk --version prints its version and exits 1.
      error.code === 'ENOENT' ? 'wrk is not installed (apt-get install wrk)' : undefined,
  );
  if (missing !== undefined) return { ...base, figures: [], missing };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'petstore-bench-workers-'));
  const servers: RunningServer[] = [];
  try {
    options.log(`workers: seeding ${options.petCount} pets`);
    await seedDataDir(dataDir, options.petCount);
    const key = await createApiKey(ROOT, petstoreEnv(dataDir, 0));
    const counts = [1, 2];
    for (const workers of counts)
      servers.push(
        await startPetstore(
          machine,
          dataDir,
          120_000,
          {},
          { args: ['--workers', String(workers)], allCores: true },
        ),
      );
    const totals = counts.map(() => ({ requests: 0, seconds: 0, cpuMs: 0, failures: 0 }));
    for (let round = 0; round < options.rounds; round++) {
      for (const [i, server] of servers.entries()) {
        options.log(`workers: ${counts[i]} worker(s), round ${round + 1} of ${options.rounds}`);
        const pids = [server.process.child.pid!, ...childPids(server.process.child.pid!)];
        const cpuBefore = sumCpuMs(pids);
        const result = await wrk(machine, `${server.url}${PATH}`, key.header, options.seconds);
        const total = totals[i]!;
        total.cpuMs += sumCpuMs(pids) - cpuBefore;
        total.requests += result.requests;
        total.seconds += result.seconds;
        total.failures += result.failures;
      }
    }
    return {
      ...base,
      figures: totals.map((total, i) => ({
        workers: counts[i]!,
        requestsPerSecond: total.requests / total.seconds,
        cpuUsPerRequest: (total.cpuMs * 1000) / Math.max(total.requests, 1),
        failures: total.failures,
      })),
      missing: undefined,
    };
  } finally {
    for (const server of servers) await server.process.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function sumCpuMs(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + processCpuMs(pid).all, 0);
}

/** One wrk run: one thread, CONNECTIONS connections, on every core. */
async function wrk(
  machine: Machine,
  url: string,
  authorization: string,
  seconds: number,
): Promise<{ requests: number; seconds: number; failures: number }> {
  const [command, args] = everyCpu(machine, [
    'wrk',
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '-H',
    `Authorization: ${authorization}`,
    url,
  ]);
  const { stdout } = await run(command, args);
  const done = /(\d+) requests in ([\d.]+)(m?s)/.exec(stdout);
  if (done === null) throw new Error(`wrk printed no total:\n${stdout}`);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const socketErrors = errors === null ? 0 : errors.slice(1).reduce((sum, n) => sum + Number(n), 0);
  return {
    requests: Number(done[1]) - non2xx,
    seconds: Number(done[2]) / (done[3] === 'ms' ? 1000 : 1),
    failures: non2xx + socketErrors,
  };
}
