import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKey } from './api-key.ts';
import { runLoad } from './load.ts';
import { describeAndPinMachine, onServerCpu } from './machine.ts';
import { seedDataDir } from './seed.ts';
import { buildPetstore, PETSTORE_BIN, petstoreEnv, ROOT } from './servers.ts';

/**
 * What one setting costs per request: two pet stores on one seeded store, A as the benchmark runs
 * it and B with `--b NAME=value` more, driven in paired 1 s rounds (A B, B A, A B…) on the server
 * core, so that a neighbour's burst hits both sides alike. Reports each side's req/s, the
 * median of the per-round ratios B/A with its range, and each side's CPU time per request, read
 * from /proc (user + system, every thread): on a busy shared machine throughput swings with the
 * neighbours, while the CPU a request costs barely does, so the difference is the setting's cost.
 *
 *   node bench/env-ab.ts --b ACCESS_LOG=true [--path '/v1/pets?limit=20'] [--rounds 20] [--pets 100000]
 *
 * Nothing is appended to BENCHMARKS.md; README's Operations section quotes the figures it gave.
 */
const { values } = parseArgs({
  options: {
    b: { type: 'string', multiple: true },
    path: { type: 'string', default: '/v1/pets?limit=20' },
    rounds: { type: 'string', default: '20' },
    pets: { type: 'string', default: '100000' },
  },
});
// Split at the first '=' only: a value may hold one (NODE_OPTIONS=--max-semi-space-size=64).
const extra = Object.fromEntries(
  (values.b ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
if (Object.keys(extra).length === 0) throw new Error('say what B adds: --b NAME=value');

const machine = describeAndPinMachine();
buildPetstore();
const TICKS_PER_SECOND = 100; // Linux's USER_HZ

/** A process's CPU time so far, user and system, in seconds (Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
const dataDir = mkdtempSync(path.join(tmpdir(), 'petstore-bench-ab-'));
const servers: ChildProcess[] = [];

/** A pet store whose output is drained unread once it listens, as a log collector would take it. */
async function start(env: Record<string, string>): Promise<{ url: string; pid: number }> {
  const [command, args] = onServerCpu(machine, [PETSTORE_BIN, 'start']);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...petstoreEnv(dataDir, 0), ...env },
  });
  servers.push(child);
  child.stderr.resume();
  let seen = '';
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    seen += chunk.toString();
    const url = /"url":"([^"]+)"[^\n]*"msg":"pet store listening"/.exec(seen)?.[1];
    if (url === undefined) continue;
    child.stdout.resume();
    return { url, pid: child.pid! };
  }
  throw new Error(`the pet store exited:\n${seen}`);
}

try {
  await seedDataDir(dataDir, Number(values.pets));
  const key = await createApiKey(ROOT, petstoreEnv(dataDir, 0));
  const a = await start({});
  const b = await start(extra);
  const load = (server: { url: string }, seconds: number) =>
    runLoad(server.url, {
      connections: 64,
      durationSeconds: seconds,
      requests: [{ method: 'GET', path: values.path, headers: { authorization: key.header } }],
    });
  await load(a, 2);
  await load(b, 2);
  const rounds: { a: number; b: number }[] = [];
  const cpu = { a: 0, b: 0 };
  const served = { a: 0, b: 0 };
  const measured = async (side: 'a' | 'b', server: { url: string; pid: number }) => {
    const before = cpuSeconds(server.pid);
    const result = await load(server, 1);
    cpu[side] += cpuSeconds(server.pid) - before;
    served[side] += result.requests;
    return result;
  };
  for (let round = 0; round < Number(values.rounds); round++) {
    // A then B, then B then A: whichever runs second in a pair (a warmer cache, a neighbour's
    // burst just ending) is not always the same side.
    const [ra, rb] =
      round % 2 === 0
        ? [await measured('a', a), await measured('b', b)]
        : await measured('b', b).then(async (rb) => [await measured('a', a), rb] as const);
    if (ra.failures + rb.failures > 0) throw new Error(`failures: A ${ra.statusCodes}, B ${rb.statusCodes}`);
    rounds.push({ a: ra.requestsPerSecond, b: rb.requestsPerSecond });
  }
  const perRequestUs = (side: 'a' | 'b') => (cpu[side] / served[side]) * 1e6;
  const total = (side: 'a' | 'b') => rounds.reduce((sum, r) => sum + r[side], 0) / rounds.length;
  const ratios = rounds.map((r) => r.b / r.a).sort((x, y) => x - y);
  const median = ratios[Math.floor(ratios.length / 2)]!;
  console.log(`GET ${values.path}, 64 connections, ${rounds.length} paired 1 s rounds, ${values.pets} pets`);
  console.log(
    `A (as benchmarked): ${total('a').toFixed(0)} req/s, ${perRequestUs('a').toFixed(1)} µs of CPU per request`,
  );
  console.log(
    `B (${values.b!.join(' ')}): ${total('b').toFixed(0)} req/s, ${perRequestUs('b').toFixed(1)} µs of CPU per request`,
  );
  console.log(
    `B/A: median ${(median * 100).toFixed(1)}% (rounds ${(ratios[0]! * 100).toFixed(1)}%–${(ratios.at(-1)! * 100).toFixed(1)}%), ` +
      `ratio of totals ${((total('b') / total('a')) * 100).toFixed(1)}%; ` +
      `B adds ${(perRequestUs('b') - perRequestUs('a')).toFixed(1)} µs of server CPU per request ` +
      `(${((perRequestUs('b') / perRequestUs('a') - 1) * 100).toFixed(1)}%)`,
  );
} finally {
  for (const child of servers) {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
  rmSync(dataDir, { recursive: true, force: true });
}
