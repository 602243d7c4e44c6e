import type { HttpFigure, HttpRun } from './http.ts';
import type { LagFigures } from './lag.ts';
import type { Machine } from './machine.ts';
import { type LatencyFigures, MAX_P999_MS, MAX_P99_FACTOR, type ReadLatencyFigures } from './read-latency.ts';
import type { ScaleRun, ScaleSize } from './scale.ts';
import type { StealFigures } from './steal.ts';
import type { StoreRun } from './store.ts';
import { MAX_CPU_GROWTH, MIN_READ_SCALING, type WorkersRun } from './workers.ts';

/**
 * The figures as Markdown tables: printed on stdout and appended to BENCHMARKS.md, so that the
 * same text is what a reviewer compares between runs. A target that is missed says "no".
 */

export type RunInfo = {
  readonly date: string;
  readonly commit: string;
  readonly mode: 'full' | 'quick';
  readonly petCount: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly durationSeconds: number;
  readonly loadBefore: number;
  readonly loadAfter: number;
  /** CPU steal over the whole run, by CPU number. */
  readonly steal: ReadonlyMap<number, StealFigures>;
};

export const TARGETS = {
  rebuildEventsPerSecond: 800_000,
  /** Start-up with a million pets (the store table's, and the scale table's middle size). */
  coldStartupMs: 2000,
  warmStartupMs: 1000,
  /** Start-up from the snapshot at the scale table's largest size (5M pets). */
  largestWarmStartupMs: 5000,
  heapBytesPerPet: 150,
  /** Reads at the largest size, as a share of the smallest size's requests per second. */
  largestReadRatio: 0.9,
} as const;

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const met = (ok: boolean) => (ok ? 'yes' : '**no**');

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * A scenario's Target and Met cells. A p99 target that the bare baseline misses as well, in the
 * same rounds, says so: at a fixed number of connections, a closed loop's latency is connections ÷
 * throughput (Little's law), so on such a host no server as slow as the baseline or slower meets it.
 */
export function httpVerdict(figure: Pick<HttpFigure, 'scenario' | 'petstore' | 'baseline' | 'ratio'>): {
  target: string;
  met: string;
} {
  const { scenario, petstore, baseline, ratio } = figure;
  const targets: string[] = [];
  const checks: boolean[] = [];
  if (scenario.minRatio !== undefined) {
    targets.push(`≥ ${Math.round(scenario.minRatio * 100)}%`);
    checks.push(ratio.median >= scenario.minRatio);
  }
  let baselineMisses = false;
  if (scenario.maxP99Ms !== undefined) {
    targets.push(`p99 < ${scenario.maxP99Ms} ms`);
    checks.push(petstore.p99Ms < scenario.maxP99Ms);
    baselineMisses = baseline.p99Ms >= scenario.maxP99Ms;
  }
  if (checks.length === 0) return { target: '–', met: '–' };
  const ok = checks.every(Boolean) && petstore.failures === 0;
  const why = !ok && baselineMisses ? ` (the baseline's p99, ${ms(baseline.p99Ms)} ms, misses it too)` : '';
  return { target: targets.join(', '), met: `${met(ok)}${why}` };
}

export function httpTable(run: HttpRun): string {
  const rows = run.figures.map((figure) => {
    const { scenario, petstore, baseline, ratio: paired, ceiling, steal } = figure;
    const ratio = paired.median;
    const verdict = httpVerdict(figure);
    return [
      scenario.name,
      String(scenario.connections),
      int(petstore.requestsPerSecond),
      ms(petstore.p50Ms),
      ms(petstore.p99Ms),
      String(petstore.failures + baseline.failures),
      int(baseline.requestsPerSecond),
      ms(baseline.p50Ms),
      ms(baseline.p99Ms),
      percent(ratio),
      `${percent(paired.lowest)}–${percent(paired.highest)}`,
      percent(petstore.requestsPerSecond / baseline.requestsPerSecond),
      ceiling === undefined ? '–' : percent(ceiling.ratio.median),
      verdict.target,
      verdict.met,
      stealShares(steal),
    ];
  });
  const header = [
    'Scenario',
    'Conns',
    'req/s',
    'p50 ms',
    'p99 ms',
    'Failed',
    'Baseline req/s',
    'Baseline p50',
    'Baseline p99',
    'Ratio',
    'Round ratios',
    'Ratio of totals',
    'Headers ceiling',
    'Target',
    'Met',
    'Steal, server core',
  ];
  return table(header, rows);
}

export function lagTable(lag: LagFigures): string {
  const { samples, p50Ms, p99Ms, maxMs } = lag;
  return table(
    ['Figure', 'p50', 'p99', 'max'],
    [
      [
        `Projection lag between two API processes on one store (${samples} pets)`,
        `${ms(p50Ms)} ms`,
        `${ms(p99Ms)} ms`,
        `${ms(maxMs)} ms`,
      ],
    ],
  );
}

export function storeTable(run: StoreRun): string {
  const { rebuild, startup, appends } = run;
  const rate = rebuild.events / (rebuild.ms / 1000);
  const rows: string[][] = [
    [
      `Rebuild pet-list from ${int(rebuild.events)} events`,
      `${int(rate)} events/s (${int(rebuild.ms)} ms)`,
      `≥ ${int(TARGETS.rebuildEventsPerSecond)} events/s`,
      met(rate >= TARGETS.rebuildEventsPerSecond),
    ],
    [
      `Rebuild pet-list with \`petstore projections rebuild\` (${int(run.rebuildCommand.events)} events, offline)`,
      `${int(run.rebuildCommand.eventsPerSecond)} events/s as it reports (${int(run.rebuildCommand.wallMs)} ms with Node's start and the snapshot it saves)`,
      `≥ ${int(TARGETS.rebuildEventsPerSecond)} events/s`,
      met(run.rebuildCommand.eventsPerSecond >= TARGETS.rebuildEventsPerSecond),
    ],
    [
      `Start-up with ${int(rebuild.pets)} pets, no snapshot`,
      `${int(startup.coldMs)} ms`,
      `< ${int(TARGETS.coldStartupMs)} ms`,
      met(startup.coldMs < TARGETS.coldStartupMs),
    ],
    [
      `Start-up with ${int(rebuild.pets)} pets, from snapshot`,
      `${int(startup.warmMs)} ms`,
      `< ${int(TARGETS.warmStartupMs)} ms`,
      met(startup.warmMs < TARGETS.warmStartupMs),
    ],
    [
      'Read model, heap per pet (after GC)',
      `${int(rebuild.heapBytesPerPet)} bytes`,
      `≤ ${TARGETS.heapBytesPerPet} bytes`,
      met(rebuild.heapBytesPerPet <= TARGETS.heapBytesPerPet),
    ],
    ['Read model, RSS per pet (after GC)', `${int(rebuild.rssBytesPerPet)} bytes`, '–', '–'],
    ...appends.map((a) => [
      `Durable appends, ${a.writers} writer${a.writers === 1 ? '' : 's'} (store level)`,
      `${int(a.appends / a.seconds)} appends/s (p50 ${ms(a.p50Ms)} ms, p99 ${ms(a.p99Ms)} ms)`,
      '–',
      '–',
    ]),
  ];
  return table(['Figure', 'Value', 'Target', 'Met'], rows);
}

export function latencyTable(runs: readonly ReadLatencyFigures[]): string {
  const rows = runs.map((run) => {
    const { alone, withWrites, writes } = run;
    const p99Ok = withWrites.p99Ms <= MAX_P99_FACTOR * alone.p99Ms;
    const p999Ok = withWrites.p999Ms < MAX_P999_MS;
    const failures = alone.failures + withWrites.failures + writes.failures;
    return [
      int(run.pets),
      `${ms(alone.p50Ms)} / ${ms(alone.p99Ms)} / ${ms(alone.p999Ms)} / ${ms(alone.maxMs)}`,
      `${ms(withWrites.p50Ms)} / ${ms(withWrites.p99Ms)} / ${ms(withWrites.p999Ms)} / ${ms(withWrites.maxMs)}`,
      `${int(writes.count / run.seconds)}/s, p99 ${ms(writes.p99Ms)} ms`,
      String(run.snapshots),
      String(failures),
      `${(withWrites.p99Ms / alone.p99Ms).toFixed(2)}×`,
      met(p99Ok && p999Ok && failures === 0),
      `${ms(alone.generatorDelay.p99Ms)} / ${ms(alone.generatorDelay.maxMs)}; ${ms(withWrites.generatorDelay.p99Ms)} / ${ms(withWrites.generatorDelay.maxMs)}`,
      `${stealShares(alone.steal)}; ${stealShares(withWrites.steal)}`,
      `${busyShares(alone.busy)}; ${busyShares(withWrites.busy)}`,
    ];
  });
  const first = runs[0];
  const title =
    first === undefined
      ? 'GET'
      : `GET /v1/pets?limit=20 at ${int(first.getRate)}/s, alone and with POST /v1/pets at ${int(first.postRate)}/s, ${first.seconds} s each`;
  return [
    `${title}: p50 / p99 / p99.9 / max in ms. Target: with the writes, p99 within ${MAX_P99_FACTOR}× its value alone and p99.9 < ${MAX_P999_MS} ms, snapshots included. Load generator delay: how late the load generator's own event loop ran (1 ms resolution included), which the latencies count as the server's. Steal: the time the hypervisor gave the server's core to others during the phase. Server CPU: the share of the phase's wall time the server's threads ran on a CPU, all of them and the main thread alone: every one of them runs on the server's core, so this is how busy the server kept that core, and near 100% requests queue behind one another.`,
    '',
    table(
      [
        'Pets',
        'GET alone',
        'GET with writes',
        'POST served',
        'Snapshots',
        'Failed',
        'p99 with ÷ alone',
        'Met',
        'Load generator delay p99 / max: alone; with',
        'Steal on the server core: alone; with',
        'Server CPU (main thread): alone; with',
      ],
      rows,
    ),
  ].join('\n');
}

/** `91% (main 68%)`: a phase's CPU time as a share of its wall time. */
export function busyShares(busy: LatencyFigures['busy']): string {
  return `${Math.round(busy.all * 100)}% (main ${Math.round(busy.main * 100)}%)`;
}

export function workersTable(run: WorkersRun): string {
  if (run.missing !== undefined) return `Workers: not measured: ${run.missing}.`;
  const one = run.figures.find((figure) => figure.workers === 1);
  const rows = run.figures.map((figure) => {
    if (one === undefined || figure === one)
      return [
        String(figure.workers),
        int(figure.requestsPerSecond),
        int(figure.cpuUsPerRequest),
        String(figure.failures),
        '–',
        '–',
        '–',
      ];
    const scaling = figure.requestsPerSecond / one.requestsPerSecond;
    const cpuGrowth = figure.cpuUsPerRequest / one.cpuUsPerRequest;
    return [
      String(figure.workers),
      int(figure.requestsPerSecond),
      int(figure.cpuUsPerRequest),
      String(figure.failures),
      `${scaling.toFixed(2)}× (≥ ${MIN_READ_SCALING}×)`,
      `${cpuGrowth.toFixed(2)}× (≤ ${MAX_CPU_GROWTH}×)`,
      met(scaling >= MIN_READ_SCALING && cpuGrowth <= MAX_CPU_GROWTH && figure.failures === 0),
    ];
  });
  return [
    `\`petstore start --workers N\` on every core, \`GET ${run.path}\` from wrk (1 thread, ${run.connections} connections) on the same cores, ${run.rounds} alternating rounds of ${run.seconds} s. CPU: every server process (primary and workers) per request.`,
    '',
    table(['Workers', 'req/s', 'CPU µs/request', 'Failed', 'Reads vs 1', 'CPU vs 1', 'Met'], rows),
  ].join('\n');
}

const SCALE_READS = ['GET /v1/pets?limit=100', 'GET /v1/pets/{id}'] as const;

/** One row per catalogue size, then the targets, judged on the larger sizes (against the smallest for reads). */
export function scaleTables(run: ScaleRun): string {
  const rows = run.sizes.map((size) => [
    int(size.pets),
    `${int(size.startup.coldMs)} ms`,
    `${int(size.startup.warmMs)} ms`,
    `${int(size.rebuild.heapBytesPerPet)} bytes`,
    `${int(size.rebuild.rssBytesPerPet)} bytes`,
    `${int(size.rebuild.events / (size.rebuild.ms / 1000))} events/s`,
    ...SCALE_READS.map((scenario) => {
      const reads = readsOf(size, scenario);
      const ratio = size === run.sizes[0] ? '' : ` (${percent(reads.ratioToSmallest.median)})`;
      return `${int(reads.load.requestsPerSecond)}${ratio}`;
    }),
  ]);
  const sizes = table(
    [
      'Pets',
      'Start-up, no snapshot',
      'Start-up, from snapshot',
      'Heap per pet',
      'RSS per pet',
      'Rebuild',
      ...SCALE_READS.map((scenario) => `${scenario} req/s`),
    ],
    rows,
  );
  return `${sizes}

${scaleTargets(run)}`;
}

function scaleTargets(run: ScaleRun): string {
  const smallest = run.sizes[0]!;
  const middle = run.sizes[Math.min(1, run.sizes.length - 1)]!;
  const largest = run.sizes.at(-1)!;
  const rows: string[][] = [
    [
      `Start-up with ${int(middle.pets)} pets, no snapshot`,
      `${int(middle.startup.coldMs)} ms`,
      `< ${int(TARGETS.coldStartupMs)} ms`,
      met(middle.startup.coldMs < TARGETS.coldStartupMs),
    ],
    [
      `Start-up with ${int(middle.pets)} pets, from snapshot`,
      `${int(middle.startup.warmMs)} ms`,
      `< ${int(TARGETS.warmStartupMs)} ms`,
      met(middle.startup.warmMs < TARGETS.warmStartupMs),
    ],
    [
      `Start-up with ${int(largest.pets)} pets, from snapshot`,
      `${int(largest.startup.warmMs)} ms`,
      `< ${int(TARGETS.largestWarmStartupMs)} ms`,
      met(largest.startup.warmMs < TARGETS.largestWarmStartupMs),
    ],
    // Not at the smallest size, where the process's own fixed costs weigh on each of few pets.
    ...run.sizes
      .slice(1)
      .map((size) => [
        `Heap per pet with ${int(size.pets)} pets (after GC)`,
        `${int(size.rebuild.heapBytesPerPet)} bytes`,
        `≤ ${TARGETS.heapBytesPerPet} bytes`,
        met(size.rebuild.heapBytesPerPet <= TARGETS.heapBytesPerPet),
      ]),
    ...SCALE_READS.map((scenario) => {
      const { ratioToSmallest: ratio } = readsOf(largest, scenario);
      return [
        `${scenario} with ${int(largest.pets)} pets ÷ with ${int(smallest.pets)}`,
        `${percent(ratio.median)} (rounds ${percent(ratio.lowest)}–${percent(ratio.highest)})`,
        `≥ ${percent(TARGETS.largestReadRatio)}`,
        met(ratio.median >= TARGETS.largestReadRatio),
      ];
    }),
  ];
  return table(['Figure', 'Value', 'Target', 'Met'], rows);
}

function readsOf(size: ScaleSize, scenario: string) {
  const reads = size.reads.find((r) => r.scenario === scenario);
  if (reads === undefined) throw new Error(`no ${scenario} figure for ${size.pets} pets`);
  return reads;
}

/** Steal by CPU: its share of the run and of the worst second. */
function stealLine(steal: ReadonlyMap<number, StealFigures>): string {
  if (steal.size === 0) return 'not measured (no /proc/stat)';
  return [...steal].map(([cpu, figures]) => `CPU ${cpu} ${stealShares(figures)}`).join(', ');
}

/** "0.4% (worst second 12%)" */
export function stealShares({ share, worstSecond }: StealFigures): string {
  return `${percent(share)} (worst second ${Math.round(worstSecond * 100)}%)`;
}

export function machineLine(machine: Machine): string {
  const pinning =
    machine.serverCpu === undefined
      ? 'not pinned (one core, or no taskset)'
      : `servers and store measurements on CPU ${machine.serverCpu}, load generator on CPU ${machine.loadCpu} (taskset)`;
  return `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}; ${pinning}`;
}

export type Sections = {
  readonly http?: HttpRun | undefined;
  readonly store?: StoreRun | undefined;
  readonly latency?: readonly ReadLatencyFigures[] | undefined;
  readonly workers?: WorkersRun | undefined;
  readonly scale?: ScaleRun | undefined;
};

export function report(info: RunInfo, machine: Machine, sections: Sections): string {
  const { http, store, latency, workers, scale } = sections;
  const notes = [
    `- Machine: ${machineLine(machine)}`,
    `- Run: ${info.mode} mode, ${info.seconds} s per scenario and side after a warm-up, in ${info.rounds} alternating rounds (baseline, pet store, …), ${int(info.petCount)} pets seeded for the HTTP scenarios, took ${int(info.durationSeconds)} s`,
    // Other work on the machine lowers every figure; the ratios suffer less, as both sides share it.
    `- Load average (1 min) before and after: ${info.loadBefore.toFixed(2)}, ${info.loadAfter.toFixed(2)}`,
    `- CPU steal, the time the hypervisor gave this machine's cores to others while they had work (/proc/stat), which no process here sees and every figure counts as its own: ${stealLine(info.steal)}`,
  ];
  if (http !== undefined) {
    notes.push(
      "- Ratio (judged against the target): the median of the per-round ratios (pet store ÷ the baseline round just before it); Round ratios: the lowest and highest; Ratio of totals: all rounds together, which a stall of the pet store in any round lowers (and one of the baseline raises); p50/p99: over every response of every round; Headers ceiling: the same bytes served by the same bare Fastify route with the response headers the pet store sent for them (X-Request-Id, the rate-limit set, Link, ETag, Deprecation…), as a share of the baseline, measured in the same rounds: what the interface's headers alone leave of the baseline on this stack; Steal, server core: the time the hypervisor gave the server's core to others over the scenario's rounds (both sides), and in its worst second",
    );
    notes.push(
      `- Auth: ${http.authenticated ? 'enterprise API key (Authorization: Bearer), authentication and rate limiting on' : 'no guard in this build yet: requests carry an Authorization header the open guard ignores'}`,
    );
    if (http.graphqlMissing !== undefined) notes.push(`- GraphQL scenario not run: ${http.graphqlMissing}`);
  }
  if (store !== undefined && store.repeats > 1)
    notes.push(
      `- Rebuild and start-up: the median of ${store.repeats} runs, each in a fresh process (memory per pet: from the median rebuild)`,
    );
  if (scale !== undefined)
    notes.push(
      `- Scale: ${scale.sizes.map((size) => int(size.pets)).join(', ')} pets, each seeded into a store of its own; start-up the median of ${scale.repeats} runs; heap, RSS and rebuild from one rebuild in a fresh process; reads with ${scale.authenticated ? 'an API key (authentication on)' : 'no guard in this build'}, ${scale.seconds} s per size and scenario in ${scale.rounds} rounds going to each size's server in turn, once its temporal index has caught up; in brackets, the share of the smallest size's requests per second (the median of the rounds')`,
    );
  const tables = [
    ...(http === undefined ? [] : [httpTable(http), '']),
    ...(http?.lag === undefined ? [] : [lagTable(http.lag), '']),
    ...(store === undefined ? [] : [storeTable(store), '']),
    ...(latency === undefined ? [] : [latencyTable(latency), '']),
    ...(workers === undefined ? [] : [workersTable(workers), '']),
    ...(scale === undefined ? [] : [scaleTables(scale), '']),
  ];
  return [`## ${info.date} · ${info.commit} · ${info.mode}`, '', ...notes, '', ...tables].join('\n');
}
