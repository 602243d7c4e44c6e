import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKey } from './api-key.ts';
import { percentiles } from './load.ts';
import { seedDataDir } from './seed.ts';
import { buildPetstore, freePort, PETSTORE_BIN, petstoreEnv, ROOT } from './servers.ts';

/**
 * `node bench/snapshot-stall.ts [--pets 800000] [--seconds 20]`: what a periodic read-model snapshot
 * costs the reads served meanwhile (issue 16 item 2). A server starts from a snapshot of `--pets`
 * pets; GETs of /v1/pets?limit=20 are sent at a fixed rate (open loop: each on its own schedule,
 * so a stall shows in every request it delays) while pets are created at a fixed rate, twice:
 * with snapshots every 1,000 events (about one every `--post-rate`/1000 s) and with none. The
 * difference between the two runs is the snapshots' cost.
 */

const { values } = parseArgs({
  options: {
    pets: { type: 'string', default: '800000' },
    seconds: { type: 'string', default: '20' },
    'get-rate': { type: 'string', default: '500' },
    'post-rate': { type: 'string', default: '100' },
    'trace-gc': { type: 'boolean', default: false },
  },
});
const pets = Number(values.pets);
const seconds = Number(values.seconds);
const getRate = Number(values['get-rate']);
const postRate = Number(values['post-rate']);
const log = (line: string) => process.stderr.write(`snapshot-stall: ${line}\n`);

buildPetstore();
const dataDir = mkdtempSync(path.join(tmpdir(), 'petstore-bench-stall-'));
try {
  log(`seeding ${pets} pets`);
  await seedDataDir(dataDir, pets);
  const key = await createApiKey(ROOT, petstoreEnv(dataDir, 0));
  // A first start builds the read model and leaves a snapshot on shutdown; the runs start from it.
  await (await startServer(dataDir, 1_000_000_000)).stop();
  for (const [label, every] of [
    ['snapshots every 1000 events', 1000],
    ['no snapshots', 1_000_000_000],
  ] as const) {
    const server = await startServer(dataDir, every);
    try {
      await warmUp(server.url, key.header);
      const figures = await measure(server.url, key.header);
      log(`${label}: ${JSON.stringify(figures)}`);
      process.stdout.write(
        `| ${label} | ${figures.p50} | ${figures.p99} | ${figures.p999} | ${figures.max} |\n`,
      );
    } finally {
      await server.stop();
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

async function startServer(dir: string, snapshotEvery: number) {
  const port = await freePort();
  const flags = values['trace-gc'] ? ['--trace-gc'] : [];
  const child = spawn(process.execPath, [...flags, PETSTORE_BIN, 'start'], {
    cwd: ROOT,
    env: { ...process.env, ...petstoreEnv(dir, port), SNAPSHOT_EVERY_EVENTS: String(snapshotEvery) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const line of chunk.toString().split('\n'))
      if (/snapshot|Mark-Compact/i.test(line)) log(line.slice(0, 160));
  });
  const exited = once(child, 'exit');
  const url = `http://127.0.0.1:${port}`;
  while (!output.includes('pet store listening')) {
    if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Of "sent:took" pairs, the slowest of each 250 ms of sending. */
function slowest(pairs: readonly string[]): string[] {
  const worst = new Map<number, [number, number]>();
  for (const pair of pairs) {
    const [sent, took] = pair.split(':').map(Number) as [number, number];
    const bucket = Math.floor(sent / 250);
    if ((worst.get(bucket)?.[1] ?? 0) < took) worst.set(bucket, [sent, took]);
  }
  return [...worst.values()].sort((a, b) => a[0] - b[0]).map(([sent, took]) => `${sent}:${took}`);
}

/** Two seconds of reads first, over many connections, so that the runs compare steady states. */
async function warmUp(url: string, authorization: string): Promise<void> {
  const until = performance.now() + 2000;
  const loop = async () => {
    while (performance.now() < until) {
      const response = await fetch(`${url}/v1/pets?limit=20`, { headers: { authorization } });
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 32 }, loop));
}

/** Fixed-rate GETs and POSTs for `seconds`; the GETs' latency percentiles in ms. */
async function measure(url: string, authorization: string) {
  const latencies: number[] = [];
  const failures: string[] = [];
  const slow: string[] = [];
  const started = performance.now();
  const pending: Promise<void>[] = [];
  const schedule = (rate: number, send: () => Promise<void>) => {
    const total = Math.round(rate * seconds);
    for (let i = 0; i < total; i++) {
      const at = started + (i * 1000) / rate;
      pending.push(
        new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, at - performance.now()))).then(send),
      );
    }
  };
  schedule(getRate, async () => {
    const sent = performance.now();
    try {
      const response = await fetch(`${url}/v1/pets?limit=20`, { headers: { authorization } });
      await response.arrayBuffer();
      const took = performance.now() - sent;
      if (response.status !== 200) failures.push(String(response.status));
      else latencies.push(took);
      if (took > 50) slow.push(`${Math.round(sent - started)}:${Math.round(took)}`);
    } catch (error) {
      failures.push(String((error as Error).cause ?? error));
    }
  });
  schedule(postRate, async () => {
    const response = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Stall', categoryId: 1, status: 'available' }),
    });
    await response.arrayBuffer();
    if (response.status !== 201) failures.push(`POST ${response.status}`);
  });
  await Promise.all(pending);
  if (slow.length > 0)
    log(`slow GETs, the slowest sent in each 250 ms (sent at ms: took ms): ${slowest(slow).join(' ')}`);
  const sorted = Float64Array.from(latencies).sort();
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    gets: latencies.length,
    failures: failures.length,
    firstFailures: [...new Set(failures)].slice(0, 3),
    p50: round(percentiles(latencies).p50Ms),
    p99: round(rank(0.99)),
    p999: round(rank(0.999)),
    max: round(sorted.at(-1) ?? 0),
  };
}
