import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKey } from './api-key.ts';
import { describeAndPinMachine } from './machine.ts';
import { NEW_PET_BODY } from './scenarios/http.ts';
import { seedDataDir } from './seed.ts';
import { petstoreEnv, ROOT, startPetstore } from './servers.ts';

/**
 * Do writes stall reads? GET latency at a fixed rate, alone and while durable POSTs flow at a fixed
 * rate (issue 16 item 2). Open loop: each request leaves at its scheduled time whatever the
 * previous ones are doing, so a stall of the server shows in every request it delays (a closed
 * loop would send fewer requests during the stall and hide it). Then POSTs alone, at the same
 * rate and as fast as 64 connections go (closed loop). Each phase reports the server's CPU time
 * per request, all threads and the main thread's own (from /proc), which moves far less than
 * latencies with the load of a shared machine. Not part of `npm run bench`:
 *
 *   node bench/read-latency.ts [--pets 100000] [--get-rate 1000] [--post-rate 2000] [--seconds 20]
 *                              [--snapshot-every 1000000000]
 */

const { values } = parseArgs({
  options: {
    pets: { type: 'string', default: '100000' },
    'get-rate': { type: 'string', default: '1000' },
    'post-rate': { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '20' },
    /** SNAPSHOT_EVERY_EVENTS of the server; the default keeps snapshots out of the window. */
    'snapshot-every': { type: 'string', default: '1000000000' },
  },
});
const pets = Number(values.pets);
const getRate = Number(values['get-rate']);
const postRate = Number(values['post-rate']);
const seconds = Number(values.seconds);
const log = (line: string) => process.stderr.write(`read-latency: ${line}\n`);

type Phase = { readonly latenciesMs: number[]; failures: number };

/** Sends `request` `rate` times a second for `ms`, each at its scheduled time, whatever the others do. */
async function openLoop(
  url: URL,
  agent: http.Agent,
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
  rate: number,
  ms: number,
): Promise<Phase> {
  const phase: Phase = { latenciesMs: [], failures: 0 };
  const start = performance.now();
  const total = Math.floor((rate * ms) / 1000);
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = start + (i * 1000) / rate;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    // From the moment it leaves: the load generator's own lateness is not the server's, and a stall
    // of the server still shows, since requests keep leaving on schedule during it.
    const sentAt = performance.now();
    pending.push(
      send(url, agent, request).then(
        (ok) => {
          if (ok) phase.latenciesMs.push(performance.now() - sentAt);
          else phase.failures += 1;
        },
        () => {
          phase.failures += 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  return phase;
}

function send(
  url: URL,
  agent: http.Agent,
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        agent,
        method: request.method,
        path: request.path,
        headers: request.headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode !== undefined && res.statusCode < 300));
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/** CPU time of the server process so far, in ms: every thread, and the main thread alone. */
function serverCpuMs(pid: number): { all: number; main: number } {
  // Fields 14 and 15 of /proc/<pid>/stat (after the command in parentheses): utime, stime in ticks.
  const ticks = (stat: string) => {
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const tickMs = 10; // USER_HZ is 100 on Linux
  return {
    all: ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')) * tickMs,
    main: ticks(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')) * tickMs,
  };
}

/** Runs `phase` and adds the server's CPU per request during it to its summary. */
async function measured<T extends Phase | Phase[]>(pid: number, phase: () => Promise<T>) {
  const before = serverCpuMs(pid);
  const result = await phase();
  const after = serverCpuMs(pid);
  const requests = [result].flat().reduce((sum, p) => sum + p.latenciesMs.length + p.failures, 0);
  const perRequest = (ms: number) => ((ms * 1000) / requests).toFixed(0);
  const cpu = `server CPU per request ${perRequest(after.all - before.all)} µs (main thread ${perRequest(after.main - before.main)} µs)`;
  return { result, cpu };
}

/** `connections` loops, each sending `request` and waiting for its answer, for `ms`. */
async function closedLoop(
  url: URL,
  agent: http.Agent,
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
  connections: number,
  ms: number,
): Promise<Phase> {
  const phase: Phase = { latenciesMs: [], failures: 0 };
  const end = performance.now() + ms;
  const loop = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const ok = await send(url, agent, request).catch(() => false);
      if (ok) phase.latenciesMs.push(performance.now() - started);
      else phase.failures += 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return phase;
}

function summary(phase: Phase): string {
  const sorted = Float64Array.from(phase.latenciesMs).sort();
  const at = (p: number) => (sorted.length === 0 ? 0 : sorted[Math.ceil(p * sorted.length) - 1]!);
  const ms = (v: number) => v.toFixed(2);
  return `n=${sorted.length} p50=${ms(at(0.5))} p99=${ms(at(0.99))} p99.9=${ms(at(0.999))} max=${ms(at(1))} failed=${phase.failures}`;
}

const machine = describeAndPinMachine();
const dataDir = mkdtempSync(path.join(tmpdir(), 'petstore-read-latency-'));
try {
  log(`seeding ${pets} pets`);
  await seedDataDir(dataDir, pets);
  const key = await createApiKey(ROOT, petstoreEnv(dataDir, 0));
  const server = await startPetstore(machine, dataDir, 120_000, {
    SNAPSHOT_EVERY_EVENTS: values['snapshot-every'],
  });
  try {
    const url = new URL(server.url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    const get = { method: 'GET', path: '/v1/pets?limit=20', headers: { authorization: key.header } };
    const post = {
      method: 'POST',
      path: '/v1/pets',
      headers: { authorization: key.header, 'content-type': 'application/json' },
      body: NEW_PET_BODY,
    };
    log('warming up (3 s of both)');
    await Promise.all([openLoop(url, agent, get, getRate, 3000), openLoop(url, agent, post, postRate, 3000)]);
    const pid = server.process.child.pid!;
    const window = seconds * 1000;
    log(`GET alone, ${getRate}/s for ${seconds} s`);
    const alone = await measured(pid, () => openLoop(url, agent, get, getRate, window));
    log(`GET ${getRate}/s with POST ${postRate}/s for ${seconds} s`);
    const both = await measured(pid, () =>
      Promise.all([openLoop(url, agent, get, getRate, window), openLoop(url, agent, post, postRate, window)]),
    );
    log(`POST alone, ${postRate}/s for ${seconds} s`);
    const postAlone = await measured(pid, () => openLoop(url, agent, post, postRate, window));
    log(`POST, 64 connections as fast as they go, for ${seconds} s`);
    const postFull = await measured(pid, () => closedLoop(url, agent, post, 64, window));
    agent.destroy();
    const [withWrites, writes] = both.result;
    const rate = (phase: Phase) => `${Math.round(phase.latenciesMs.length / seconds)}/s`;
    process.stdout.write(
      [
        `machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.node}; server on CPU ${machine.serverCpu ?? 'any'}`,
        `pets: ${pets}, window: ${seconds} s per phase, SNAPSHOT_EVERY_EVENTS=${values['snapshot-every']}`,
        `GET alone (${getRate}/s):              ${summary(alone.result)}`,
        `  ${alone.cpu}`,
        `GET (${getRate}/s) with POST (${postRate}/s): ${summary(withWrites)}`,
        `POST (${postRate}/s) with GET:            ${summary(writes)}`,
        `  ${both.cpu}`,
        `POST alone (${postRate}/s):               ${summary(postAlone.result)}`,
        `  ${postAlone.cpu}`,
        `POST, 64 connections (${rate(postFull.result)}): ${summary(postFull.result)}`,
        `  ${postFull.cpu}`,
      ].join('\n') + '\n',
    );
  } finally {
    await server.process.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
