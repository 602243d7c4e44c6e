import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childPids } from '../../bench/process-cpu.ts';
import { runPetstore } from '../support/petstore-cli.ts';
import { type Scrape, scrape, series } from '../support/prometheus.ts';
import {
  createApiKey,
  type ServerProcess,
  SOURCES_ENTRY,
  startServerProcess,
} from '../support/server-process.ts';
import { atTheStartOfAMinute } from '../support/minute.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * `petstore start --workers 2`: two server processes on one port and one store, as an operator
 * runs it on a machine with two cores. Each request below opens a connection of its own, so that
 * the primary hands it to the next worker in turn, as it does with a client's many connections.
 */

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;
let enterprise: string;
let metricsUrl: string;

type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** One request on a fresh connection (no keep-alive agent), so that any worker may answer it. */
function call(method: string, path: string, secret: string, body?: unknown, headers = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, {
      method,
      agent: false,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
    });
    req.on('error', reject);
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: text }),
      );
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** The pids of the worker processes, from the access log lines they wrote. */
function workerPids(): Set<number> {
  const pids = new Set<number>();
  for (const line of server.output) {
    if (!line.includes('"msg":"request"')) continue;
    const parsed = JSON.parse(line) as { pid: number; worker?: number };
    if (parsed.worker !== undefined) pids.add(parsed.pid);
  }
  return pids;
}

const DEATH = '"msg":"worker died: starting another"';
const STOPPED = '"msg":"worker stopped: starting another"';

/** How many times the primary has said that a worker died. */
function deaths(): number {
  return server.output.filter((line) => line.includes(DEATH)).length;
}

/** Waits until the primary has said `count` times that a worker died; resolves the output's length then. */
function waitForDeaths(count: number): Promise<number> {
  return waitFor(() => (deaths() >= count ? server.output.length : undefined));
}

/**
 * Sends requests on fresh connections until two processes have answered since output line `since`
 * (after a death's line: the dead worker wrote everything it ever will before it), and names them.
 */
function twoAnswerAfter(since: number): Promise<Set<number>> {
  return waitFor(async () => {
    await call('GET', '/v1/pets?limit=1', enterprise).catch(() => undefined);
    const pids = new Set(
      server.output
        .slice(since)
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
    return pids.size >= 2 ? pids : undefined;
  });
}

/** Polls `probe` until it gives a value, for at most 20 s. */
async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(
        `gave up waiting:\n${server.output.filter((line) => !line.includes('"msg":"request"')).join('\n')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  temp = makeTempDir('petstore-workers-');
  const env = { PETSTORE_DATA_DIR: temp.dir };
  enterprise = createApiKey(env);
  server = await startServerProcess(
    { ...env, ACCESS_LOG: 'true', METRICS_PORT: '0' },
    { args: ['--workers', '2'] },
  );
  metricsUrl = /"metricsUrl":"([^"]+)"/.exec(server.output.join('\n'))![1]!;
}, 60_000);
afterAll(async () => {
  // SIGTERM: the primary exits once its workers have stopped. After a SIGKILL the orphaned
  // workers shut down on their own, still writing into the data directory as it is removed.
  await server?.kill('SIGTERM');
  temp?.remove();
}, 30_000);

describe('petstore start --workers 2', () => {
  it('says once, from the primary, that it listens with two workers', () => {
    const listening = server.output
      .filter((line) => line.includes('"msg":"pet store listening"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(listening).toHaveLength(1);
    expect(listening[0]).toMatchObject({ url: server.url, workers: 2, pid: server.child.pid });
  });

  it('answers on one port from two processes', async () => {
    for (let i = 0; i < 8; i++) expect((await call('GET', '/v1/pets?limit=1', enterprise)).status).toBe(200);
    // A worker writes a request's log line after its response: on a busy machine the line may lag it.
    await expect.poll(() => workerPids().size, { timeout: 5_000 }).toBe(2);
    expect(workerPids().has(server.child.pid!)).toBe(false);
  });

  it('reads a write at once on the other worker when the client sends the position it was given', async () => {
    for (let i = 0; i < 10; i++) {
      const created = await call('POST', '/v1/pets', enterprise, { name: `Rex ${i}`, categoryId: 1 });
      expect(created.status).toBe(201);
      const { id } = JSON.parse(created.body) as { id: number };
      const position = created.headers['x-store-position'] as string;
      const read = await call('GET', `/v1/pets/${id}`, enterprise, undefined, { 'x-min-position': position });
      expect(read.status).toBe(200);
      expect(JSON.parse(read.body)).toMatchObject({ id, name: `Rex ${i}` });
    }
  });

  it('holds a free key to 60 requests a minute across both workers, not 60 each', async () => {
    const free = createApiKey({ PETSTORE_DATA_DIR: temp.dir }, ['--plan', 'free']);
    await atTheStartOfAMinute();
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) statuses.push((await call('GET', '/v1/pets?limit=1', free)).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    expect(statuses.slice(60)).toEqual(Array(10).fill(429));
  });

  it('serves one scrape with each worker’s series under its worker label, and the primary’s', async () => {
    const requests = (samples: Scrape, worker: string) =>
      samples.get(
        series('http_request_duration_seconds_count', {
          route: '/v1/pets/:petId',
          method: 'GET',
          status: '404',
          worker,
        }),
      ) ?? 0;
    const before = await scrape(metricsUrl);
    for (let i = 0; i < 6; i++)
      expect((await call('GET', '/v1/pets/987654321', enterprise)).status).toBe(404);
    const after = await scrape(metricsUrl);
    const moved = ['0', '1'].map((worker) => requests(after, worker) - requests(before, worker));
    expect(moved[0]! + moved[1]!).toBe(6);
    expect(moved.every((count) => count > 0)).toBe(true);
    expect(after.get(series('process_resident_memory_bytes', { worker: 'primary' }))).toBeGreaterThan(0);
  });

  it('replaces a worker killed with SIGKILL, and keeps serving', async () => {
    const victim = childPids(server.child.pid!)[0]!;
    process.kill(victim, 'SIGKILL');
    const answering = await twoAnswerAfter(await waitForDeaths(deaths() + 1));
    expect(answering.has(victim)).toBe(false);
  });

  it('names the dead worker’s process workerPid, beside the primary’s pid: one "pid" per line', async () => {
    const victim = childPids(server.child.pid!)[0]!;
    const before = deaths();
    process.kill(victim, 'SIGKILL');
    await waitForDeaths(before + 1);
    const line = server.output.filter((output) => output.includes(DEATH)).at(-1)!;
    expect(line.match(/"pid":/g)).toHaveLength(1);
    expect(JSON.parse(line)).toMatchObject({
      level: 50,
      pid: server.child.pid,
      workerPid: victim,
      signal: 'SIGKILL',
    });
    await twoAnswerAfter(server.output.length);
  });

  it('replaces a replacement that dies before it listens, after a pause, and still serves', async () => {
    const primaryPid = server.child.pid!;
    const running = childPids(primaryPid);
    const before = deaths();
    process.kill(running[0]!, 'SIGKILL');
    const replacement = await waitFor(() => childPids(primaryPid).find((pid) => !running.includes(pid)));
    process.kill(replacement, 'SIGKILL');
    const answering = await twoAnswerAfter(await waitForDeaths(before + 2));
    expect(server.child.exitCode).toBe(null);
    expect(answering.has(running[0]!) || answering.has(replacement)).toBe(false);
  });

  it('replaces at once a worker an operator stopped with SIGTERM, logged as a stop, not a death', async () => {
    const victim = childPids(server.child.pid!)[0]!;
    const before = deaths();
    process.kill(victim, 'SIGTERM');
    const line = await waitFor(() =>
      server.output.find((output) => output.includes(STOPPED) && output.includes(`"workerPid":${victim}`)),
    );
    expect(JSON.parse(line)).toMatchObject({ level: 30, workerPid: victim, code: 0 });
    await twoAnswerAfter(server.output.indexOf(line));
    expect(deaths()).toBe(before);
  });

  it('answers a scrape at once while a worker starts', async () => {
    const [victim] = childPids(server.child.pid!);
    process.kill(victim!, 'SIGKILL');
    const started = performance.now();
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});

describe('stopping petstore start --workers 2', () => {
  it('on SIGTERM, stops both workers cleanly and exits 0', async () => {
    const dir = makeTempDir('petstore-workers-stop-');
    try {
      const running = await startServerProcess({ PETSTORE_DATA_DIR: dir.dir }, { args: ['--workers', '2'] });
      const exited = once(running.child, 'exit');
      running.child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      const stopped = running.output.filter((line) => line.includes('"msg":"pet store stopped"'));
      expect(stopped).toHaveLength(3); // each worker, then the primary
    } finally {
      dir.remove();
    }
  });

  it('on SIGTERM while a replacement worker is still starting, stops it too and exits 0', async () => {
    const dir = makeTempDir('petstore-workers-stop-starting-');
    try {
      const running = await startServerProcess({ PETSTORE_DATA_DIR: dir.dir }, { args: ['--workers', '2'] });
      const primaryPid = running.child.pid!;
      const first = childPids(primaryPid);
      process.kill(first[0]!, 'SIGKILL');
      // The replacement is forked after a pause of 1 s, and loads its modules for longer than that.
      const deadline = Date.now() + 20_000;
      while (!childPids(primaryPid).some((pid) => !first.includes(pid))) {
        if (Date.now() > deadline) throw new Error(`no replacement:\n${running.output.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const exited = once(running.child, 'exit');
      running.child.kill('SIGTERM');
      const [code] = await exited;
      expect(running.output.filter((line) => line.includes('did not stop cleanly'))).toEqual([]);
      expect(code).toBe(0);
    } finally {
      dir.remove();
    }
  });

  it('on SIGTERM as worker 0 listens, before it starts its Kafka forwarder, stops it cleanly and exits 0', async () => {
    const dir = makeTempDir('petstore-workers-stop-forwarding-');
    try {
      // No broker at that address: the forwarder only retries, which does not hold the stop.
      const child = spawn(process.execPath, [SOURCES_ENTRY, 'start', '--workers', '2'], {
        env: {
          ...process.env,
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          NODE_ENV: 'test',
          PETSTORE_DATA_DIR: dir.dir,
          KAFKA_FORWARDER: 'true',
          KAFKA_BROKERS: '127.0.0.1:9',
        },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const exited = once(child, 'exit');
      const output: string[] = [];
      createInterface({ input: child.stdout }).on('line', (line) => {
        output.push(line);
        if (line.includes('"worker":0') && line.includes('"msg":"Server listening at')) child.kill('SIGTERM');
      });
      const [code] = await exited;
      expect(output.filter((line) => line.includes('did not stop cleanly'))).toEqual([]);
      expect(code).toBe(0);
    } finally {
      dir.remove();
    }
  });

  it('when the primary is killed, each worker shuts down cleanly rather than vanish', async () => {
    const dir = makeTempDir('petstore-workers-orphans-');
    try {
      const running = await startServerProcess({ PETSTORE_DATA_DIR: dir.dir }, { args: ['--workers', '2'] });
      const stoppedWorkers = () =>
        running.output.filter(
          (line) => line.includes('"msg":"pet store stopped"') && line.includes('"worker":'),
        );
      await running.kill('SIGKILL');
      const deadline = Date.now() + 20_000;
      while (stoppedWorkers().length < 2) {
        if (Date.now() > deadline) throw new Error(`workers did not stop:\n${running.output.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stoppedWorkers()).toHaveLength(2);
    } finally {
      dir.remove();
    }
  });

  describe('a port in use', () => {
    let holder: Server | undefined;
    afterEach(() => holder?.close());

    it('fails the start with status 1 and the port named, instead of restarting the workers', async () => {
      holder = createServer().listen(0, '127.0.0.1');
      await once(holder, 'listening');
      const { port } = holder.address() as { port: number };
      const dir = makeTempDir('petstore-workers-port-');
      try {
        const { code, stderr } = await runPetstore(
          ['start', '--port', String(port), '--workers', '2', '--data-dir', dir.dir],
          { timeoutMs: 20_000 },
        );
        expect(code).toBe(1);
        expect(stderr).toContain(
          `petstore start: port ${port} on 127.0.0.1 is in use; choose another with --port or PORT`,
        );
        expect(stderr).not.toContain('worker died');
      } finally {
        dir.remove();
      }
    });
  });
});
