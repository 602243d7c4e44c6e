import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Request } from 'autocannon';
import { createApiKey } from './api-key.ts';
import { runToCompletion } from './child-process.ts';
import { combineRuns, type LoadResult, pairedRatio, type PairedRatio, runLoad } from './load.ts';
import { type Machine, onServerCpu } from './machine.ts';
import { seedDataDir } from './seed.ts';
import { petstoreEnv, ROOT, type RunningServer, startPetstore, waitForTemporalIndex } from './servers.ts';
import { measureStartup, medianBy, type StartupFigures } from './store.ts';
import type { RebuildFigures } from './store-worker.ts';

/**
 * The scale table: the same catalogue at several sizes (100k, 1M and 5M pets in full mode), each
 * seeded into a data directory of its own. For each size: start-up from the events and from the
 * snapshot (the median of `repeats`), the read model's memory and rebuild speed (bench/store-worker.ts),
 * then reads over HTTP with authentication on. The servers of every size run at once on the server
 * core and the load goes to each in turn, round after round, so that the larger catalogues are
 * compared with the smallest under the same conditions (the ratio is the median of the rounds').
 */

export type ScaleSize = {
  readonly pets: number;
  readonly startup: StartupFigures;
  /** Rebuild from position 0, and the read model's memory after it (after GC). */
  readonly rebuild: RebuildFigures;
  readonly reads: readonly ScaleReads[];
};

export type ScaleReads = {
  readonly scenario: string;
  readonly load: LoadResult;
  /** This size's requests per second ÷ the smallest size's, round by round. */
  readonly ratioToSmallest: PairedRatio;
};

export type ScaleRun = {
  readonly repeats: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly authenticated: boolean;
  /** Smallest first. */
  readonly sizes: readonly ScaleSize[];
};

export type ScaleOptions = {
  /** Pet counts, ascending; the targets judge the second and the last against the first. */
  readonly sizes: readonly number[];
  readonly repeats: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly rounds: number;
  readonly log: (line: string) => void;
};

const WORKER = path.join(ROOT, 'bench/store-worker.ts');
const CONNECTIONS = 64;
/** A prime stride: by-id reads spread over the whole catalogue instead of walking it in order. */
const ID_STRIDE = 104_729;

type Prepared = { readonly pets: number; readonly dataDir: string; readonly authorization: string };

export async function runScaleBenchmark(machine: Machine, options: ScaleOptions): Promise<ScaleRun> {
  const sizes = [...options.sizes].sort((a, b) => a - b);
  const prepared: Prepared[] = [];
  const measured: Omit<ScaleSize, 'reads'>[] = [];
  let authenticated = true;
  try {
    for (const pets of sizes) {
      const dataDir = mkdtempSync(path.join(tmpdir(), `petstore-bench-scale-${pets}-`));
      prepared.push({ pets, dataDir, authorization: '' });
      options.log(`scale: seeding ${pets} pets`);
      await seedDataDir(dataDir, pets);
      options.log(`scale: ${pets} pets, rebuild and memory`);
      const args = ['--expose-gc', WORKER, 'rebuild', dataDir];
      const rebuild = JSON.parse(await runToCompletion(onServerCpu(machine, args), ROOT)) as RebuildFigures;
      // audit:read as well, for the as-of read that tells when the temporal index has caught up.
      const key = await createApiKey(ROOT, petstoreEnv(dataDir, 0), 'pets:read,audit:read');
      authenticated &&= key.authenticated;
      prepared[prepared.length - 1] = { pets, dataDir, authorization: key.header };
      const startups: StartupFigures[] = [];
      for (let i = 0; i < options.repeats; i++) {
        options.log(`scale: ${pets} pets, start-up (${i + 1} of ${options.repeats})`);
        rmSync(path.join(dataDir, 'snapshots'), { recursive: true, force: true });
        startups.push(await measureStartup(machine, dataDir, key.header));
      }
      const startup = {
        coldMs: medianBy(startups, (run) => run.coldMs).coldMs,
        warmMs: medianBy(startups, (run) => run.warmMs).warmMs,
      };
      options.log(
        `scale: ${pets} pets, start-up ${Math.round(startup.coldMs)} ms / ${Math.round(startup.warmMs)} ms`,
      );
      measured.push({ pets, startup, rebuild });
    }
    const reads = await measureReads(machine, prepared, options);
    return {
      repeats: options.repeats,
      seconds: options.seconds,
      rounds: options.rounds,
      authenticated,
      sizes: measured.map((size, i) => ({ ...size, reads: reads[i]! })),
    };
  } finally {
    for (const { dataDir } of prepared) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Every size's server at once; each scenario's rounds go to the sizes in turn. */
async function measureReads(
  machine: Machine,
  prepared: readonly Prepared[],
  options: ScaleOptions,
): Promise<ScaleReads[][]> {
  const servers: RunningServer[] = [];
  try {
    for (const size of prepared) {
      options.log(`scale: ${size.pets} pets, starting a server and waiting for its temporal index`);
      const server = await startPetstore(machine, size.dataDir);
      servers.push(server);
      await waitForTemporalIndex(server.url, size.authorization);
    }
    const results: ScaleReads[][] = prepared.map(() => []);
    for (const scenario of ['GET /v1/pets?limit=100', 'GET /v1/pets/{id}']) {
      options.log(`scale: ${scenario}`);
      const loads = prepared.map((size) => readLoad(scenario, size));
      for (let s = 0; s < servers.length; s++)
        await runLoad(servers[s]!.url, { ...loads[s]!, durationSeconds: options.warmupSeconds });
      const runs: LoadResult[][] = prepared.map(() => []);
      const round = options.seconds / options.rounds;
      for (let i = 0; i < options.rounds; i++) {
        for (let s = 0; s < servers.length; s++)
          runs[s]!.push(await runLoad(servers[s]!.url, { ...loads[s]!, durationSeconds: round }));
        options.log(
          `scale:   round ${i + 1}: ${runs.map((r, s) => `${prepared[s]!.pets} pets ${Math.round(r.at(-1)!.requestsPerSecond)} req/s`).join(', ')}`,
        );
      }
      runs.forEach((sizeRuns, s) =>
        results[s]!.push({
          scenario,
          load: combineRuns(sizeRuns),
          ratioToSmallest: pairedRatio(sizeRuns, runs[0]!),
        }),
      );
    }
    return results;
  } finally {
    for (const server of servers) await server.process.stop();
  }
}

function readLoad(scenario: string, size: Prepared): { connections: number; requests: Request[] } {
  const headers = { authorization: size.authorization };
  if (scenario === 'GET /v1/pets?limit=100')
    return { connections: CONNECTIONS, requests: [{ method: 'GET', path: '/v1/pets?limit=100', headers }] };
  let next = 0;
  const byId: Request = {
    method: 'GET',
    path: '/v1/pets/1',
    headers,
    setupRequest: (request) => ({
      ...request,
      path: `/v1/pets/${(((next++ % size.pets) * ID_STRIDE) % size.pets) + 1}`,
    }),
  };
  return { connections: CONNECTIONS, requests: [byId] };
}
