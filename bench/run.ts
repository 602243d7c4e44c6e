import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runHttpBenchmark } from './http.ts';
import { describeAndPinMachine } from './machine.ts';
import { report } from './report.ts';
import { runScaleBenchmark } from './scale.ts';
import { buildPetstore, ROOT } from './servers.ts';
import { runReadLatencyBenchmark } from './read-latency.ts';
import { runStoreBenchmark } from './store.ts';
import { watchSteal } from './steal.ts';
import { runWorkersBenchmark } from './workers.ts';

/**
 * `npm run bench [-- --quick] [-- --no-append] [-- --only http|store|latency|workers|scale] [-- --scenario <name part>]`:
 * the pet store over HTTP next to a bare Fastify baseline measured in the same run, the store-side
 * figures, GET latency at a fixed rate with and without writes, one worker against two, and the
 * scale table (100k, 1M and 5M pets). Prints Markdown tables and, in full mode, appends them to
 * BENCHMARKS.md. Quick mode (seconds, 10k events, 1k to 10k pets for the scale table) only proves
 * that the benchmark still works; its figures are not worth comparing.
 */

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'no-append': { type: 'boolean', default: false },
    /** Run one section only while working on it (http, store, latency, workers); such runs are never appended. */
    only: { type: 'string' },
    /** Only the HTTP scenarios whose name contains this (implies --only http, never appended). */
    scenario: { type: 'string' },
  },
});

const quick = values.quick;
const settings = quick
  ? {
      petCount: 1_000,
      seconds: 1,
      warmupSeconds: 0.25,
      rounds: 1,
      lagSamples: 20,
      events: 10_000,
      repeats: 1,
      appendSeconds: 0.5,
      latencySizes: [2_000],
      latencySeconds: 1,
      workersRounds: 1,
      workersSeconds: 1,
      scaleSizes: [1_000, 5_000, 10_000],
    }
  : {
      petCount: 100_000,
      seconds: 12,
      warmupSeconds: 2,
      rounds: 12,
      lagSamples: 200,
      events: 1_000_000,
      repeats: 3,
      appendSeconds: 5,
      latencySizes: [100_000, 1_000_000],
      // 2,000 POST/s for 30 s passes the default snapshot interval (50,000 events) at least once.
      latencySeconds: 30,
      workersRounds: 3,
      workersSeconds: 10,
      scaleSizes: [100_000, 1_000_000, 5_000_000],
    };
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const started = performance.now();
const loadBefore = loadavg()[0]!;
const steal = watchSteal();
const machine = describeAndPinMachine();
if (values.scenario !== undefined && values.only === 'store')
  throw new Error('--scenario picks HTTP scenarios: it cannot go with --only store');
const only = values.scenario === undefined ? values.only : 'http';
const SECTIONS = ['http', 'store', 'latency', 'workers', 'scale'] as const;
if (only !== undefined && !(SECTIONS as readonly string[]).includes(only))
  throw new Error(`--only takes one of ${SECTIONS.join(', ')}`);
const runs = (section: (typeof SECTIONS)[number]) => only === undefined || only === section;
// Taken before the build: what a run measures is the tree as it starts.
const commitAtStart = commitDescription();
log('building the bundle production runs (npm run build)');
buildPetstore();
const http = runs('http')
  ? await runHttpBenchmark(machine, { ...settings, scenario: values.scenario, log })
  : undefined;
const store = runs('store')
  ? await runStoreBenchmark(machine, { ...settings, writers: [1, 16, 64], log })
  : undefined;
const latency = runs('latency')
  ? await runReadLatencyBenchmark(machine, {
      sizes: settings.latencySizes,
      getRate: 1000,
      postRate: 2000,
      seconds: settings.latencySeconds,
      log,
    })
  : undefined;
const workers = runs('workers')
  ? await runWorkersBenchmark(machine, {
      petCount: settings.petCount,
      rounds: settings.workersRounds,
      seconds: settings.workersSeconds,
      log,
    })
  : undefined;
const scale = runs('scale')
  ? await runScaleBenchmark(machine, { ...settings, sizes: settings.scaleSizes, log })
  : undefined;

const text = report(
  {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: measuredCommit(commitAtStart, commitDescription()),
    mode: quick ? 'quick' : 'full',
    petCount: settings.petCount,
    seconds: settings.seconds,
    rounds: settings.rounds,
    durationSeconds: (performance.now() - started) / 1000,
    loadBefore,
    loadAfter: loadavg()[0]!,
    steal: steal.stop(),
  },
  machine,
  { http, store, latency, workers, scale },
);
process.stdout.write(`${text}\n`);

if (!quick && !values['no-append'] && only === undefined) {
  const file = path.join(ROOT, 'BENCHMARKS.md');
  if (!existsSync(file))
    writeFileSync(
      file,
      '# Benchmarks\n\nAppended by `npm run bench`; newest last. See the README for what each figure means.\n\n',
    );
  appendFileSync(file, `${text}\n`);
  log(`appended to ${file}`);
}

/** The commit at the start, and what it became when the tree changed while the run went on. */
function measuredCommit(atStart: string, atEnd: string): string {
  return atStart === atEnd ? atStart : `${atStart} (the tree changed during the run: ${atEnd} at its end)`;
}

/** The commit measured, marked when the working tree had changes to tracked files. */
function commitDescription(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty === '' ? commit : `${commit} (with uncommitted changes)`;
  } catch {
    return 'unknown commit';
  }
}
