import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiKey } from './api-key.ts';
import { runToCompletion } from './child-process.ts';
import { type Machine, onServerCpu } from './machine.ts';
import { measureRebuildCommand, type RebuildCommandFigures } from './rebuild-command.ts';
import { eventsFile, seedDataDir } from './seed.ts';
import { freePort, PETSTORE_BIN, petstoreEnv, ROOT } from './servers.ts';
import type { AppendFigures, RebuildFigures } from './store-worker.ts';

export type StartupFigures = {
  /** No snapshot on disk: the server rebuilds the read model from the events before it answers. */
  readonly coldMs: number;
  /** The snapshot the previous run saved on shutdown is loaded, then the store is caught up. */
  readonly warmMs: number;
};

export type StoreRun = {
  /** Rebuild and start-up runs, of which the median is reported. */
  readonly repeats: number;
  readonly rebuild: RebuildFigures;
  /** The same rebuild as an operator runs it: `petstore projections rebuild pet-list`, offline. */
  readonly rebuildCommand: RebuildCommandFigures;
  readonly startup: StartupFigures;
  readonly appends: AppendFigures[];
};

export type StoreOptions = {
  readonly events: number;
  /** Rebuild and start-up are measured this many times, each in a fresh process; the median is kept. */
  readonly repeats: number;
  readonly appendSeconds: number;
  readonly writers: readonly number[];
  readonly log: (line: string) => void;
};

const WORKER = path.join(ROOT, 'bench/store-worker.ts');

/** Rebuild speed, read-model memory, start-up time and durable appends, each in its own process. */
export async function runStoreBenchmark(machine: Machine, options: StoreOptions): Promise<StoreRun> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'petstore-bench-store-'));
  try {
    options.log(`store: seeding ${options.events} PetCreated events`);
    await seedDataDir(dataDir, options.events);
    const rebuilds: RebuildFigures[] = [];
    for (let i = 0; i < options.repeats; i++) {
      options.log(`store: rebuilding the read model (${i + 1} of ${options.repeats})`);
      const args = ['--expose-gc', WORKER, 'rebuild', dataDir];
      rebuilds.push(JSON.parse(await runToCompletion(onServerCpu(machine, args), ROOT)) as RebuildFigures);
    }
    const rebuild = medianBy(rebuilds, (run) => run.ms);
    const key = await createApiKey(ROOT, petstoreEnv(dataDir, 0));
    const startups: StartupFigures[] = [];
    for (let i = 0; i < options.repeats; i++) {
      options.log(`store: start-up (${i + 1} of ${options.repeats})`);
      rmSync(path.join(dataDir, 'snapshots'), { recursive: true, force: true });
      startups.push(await measureStartup(machine, dataDir, key.header));
    }
    const startup = {
      coldMs: medianBy(startups, (run) => run.coldMs).coldMs,
      warmMs: medianBy(startups, (run) => run.warmMs).warmMs,
    };
    const commands: RebuildCommandFigures[] = [];
    for (let i = 0; i < options.repeats; i++) {
      options.log(`store: petstore projections rebuild pet-list (${i + 1} of ${options.repeats})`);
      commands.push(await measureRebuildCommand(machine, dataDir));
    }
    const rebuildCommand = medianBy(commands, (run) => -run.eventsPerSecond);
    const appends: AppendFigures[] = [];
    for (const writers of options.writers) {
      options.log(`store: durable appends, ${writers} writers`);
      const appendDir = mkdtempSync(path.join(tmpdir(), 'petstore-bench-appends-'));
      try {
        const args = [WORKER, 'appends', appendDir, String(writers), String(options.appendSeconds)];
        appends.push(JSON.parse(await runToCompletion(onServerCpu(machine, args), ROOT)) as AppendFigures);
      } finally {
        rmSync(appendDir, { recursive: true, force: true });
      }
    }
    return { repeats: options.repeats, rebuild, rebuildCommand, startup, appends };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Spawn to first successful GET /v1/pets, without and then with the snapshot a clean stop leaves. */
export async function measureStartup(
  machine: Machine,
  dataDir: string,
  authorization: string,
): Promise<StartupFigures> {
  const coldMs = await timeToFirstGet(machine, dataDir, authorization);
  if (!existsSync(path.join(dataDir, 'snapshots')))
    throw new Error('the server saved no snapshot on shutdown');
  const warmMs = await timeToFirstGet(machine, dataDir, authorization);
  return { coldMs, warmMs };
}

/** The run whose `value` is the median (the lower middle one of an even count). */
export function medianBy<T>(runs: readonly T[], value: (run: T) => number): T {
  if (runs.length === 0) throw new Error('no runs to take the median of');
  return [...runs].sort((a, b) => value(a) - value(b))[(runs.length - 1) >> 1]!;
}

async function timeToFirstGet(machine: Machine, dataDir: string, authorization: string): Promise<number> {
  if (!existsSync(eventsFile(dataDir))) throw new Error(`no event store in ${dataDir}`);
  const port = await freePort();
  const [command, args] = onServerCpu(machine, [PETSTORE_BIN, 'start']);
  // An empty compile cache: the figure is a fresh container's, not that of a host that ran it before.
  const compileCache = mkdtempSync(path.join(tmpdir(), 'petstore-bench-compile-cache-'));
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...petstoreEnv(dataDir, port), NODE_COMPILE_CACHE: compileCache },
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`the server exited with ${child.exitCode} before answering`);
      if (performance.now() - started > 120_000) throw new Error('the server did not answer within 120 s');
      if (await answers(port, authorization)) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(compileCache, { recursive: true, force: true });
  }
}

async function answers(port: number, authorization: string): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/v1/pets?limit=1`, { headers: { authorization } });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
