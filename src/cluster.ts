import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { CounterStore } from './application/ports/counters.ts';
import {
  COUNTER_CHANNEL,
  CounterBroker,
  leasedCounters,
  type TakeReply,
  type TakeRequest,
} from './rate-limits/leased-counters.ts';

/**
 * `petstore start --workers N`: N server processes on one port (node:cluster: the primary accepts
 * connections and hands them to the workers in turn), sharing one store and, without Redis, one
 * set of rate-limit counts held by the primary (see rate-limits/leased-counters.ts). Each worker is
 * a whole server with its own read models, following the store like any other process: a client
 * reads its own writes on the process that took them, and elsewhere within the projection lag (or
 * at once with the minimum-position header).
 *
 * The primary serves nothing itself. It replaces a worker that dies, and on SIGTERM or SIGINT asks
 * every worker to shut down cleanly and exits once they all have. A worker that fails before it
 * ever listened (a port in use, a damaged store) would fail again: the primary stops them all.
 */

/** Which worker this process is (0 … N−1), so that exactly one runs what must run once (Kafka). */
export const WORKER_INDEX_VARIABLE = 'PETSTORE_WORKER_INDEX';

export type Primary = {
  /** Every worker listens (the address is the first one's); rejects if one fails to start. */
  readonly listening: Promise<string>;
  /** Every worker has exited after a stop (a signal, or a worker that failed to start). */
  readonly stopped: Promise<void>;
};

const STOP_TIMEOUT_MS = 30_000;
/** A worker that dies sooner than this after it started is replaced only after a pause. */
const QUICK_DEATH_MS = 5_000;
const RESTART_PAUSE_MS = 1_000;

export function runPrimary(workers: number, logger: Logger): Primary {
  let stopping = false;
  const broker = new CounterBroker(() => Object.keys(cluster.workers ?? {}).length);
  const workerState = new Map<Worker, { index: number; startedAt: number; listened: boolean }>();
  let resolveListening!: (address: string) => void;
  let rejectListening!: (error: Error) => void;
  const listening = new Promise<string>((resolve, reject) => {
    resolveListening = resolve;
    rejectListening = reject;
  });
  listening.catch(() => {}); // the caller may only await `stopped`
  let listeningCount = 0;
  let firstAddress: string | undefined;

  const fork = (index: number) => {
    const worker = cluster.fork({ [WORKER_INDEX_VARIABLE]: String(index) });
    workerState.set(worker, { index, startedAt: Date.now(), listened: false });
  };

  cluster.on('message', (worker, message: TakeRequest) => {
    if (message?.channel !== COUNTER_CHANNEL) return;
    worker.send({ channel: COUNTER_CHANNEL, ...broker.take(message) } satisfies TakeReply);
  });
  cluster.on('listening', (worker, address) => {
    const state = workerState.get(worker);
    if (state === undefined || state.listened) return;
    state.listened = true;
    firstAddress ??= `http://${formatHost(address.address)}:${address.port}`;
    if (++listeningCount === workers) resolveListening(firstAddress);
  });
  cluster.on('exit', (worker, code, signal) => {
    const state = workerState.get(worker)!;
    workerState.delete(worker);
    if (stopping) return;
    if (!state.listened) {
      rejectListening(new Error(`worker ${state.index} exited before it listened (code ${code})`));
      return stop('SIGTERM');
    }
    logger.error(
      { worker: state.index, pid: worker.process.pid, code, signal },
      'worker died: starting another',
    );
    const quick = Date.now() - state.startedAt < QUICK_DEATH_MS;
    if (quick) setTimeout(() => stopping || fork(state.index), RESTART_PAUSE_MS);
    else fork(state.index);
  });

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  function stop(signal: NodeJS.Signals): void {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: workerState.size }, 'shutting down the workers');
    for (const worker of workerState.keys()) worker.process.kill('SIGTERM');
    // A worker that has not finished its clean shutdown by then is stopped hard.
    const deadline = setTimeout(() => {
      for (const worker of workerState.keys()) worker.process.kill('SIGKILL');
    }, STOP_TIMEOUT_MS);
    const check = () => {
      if (workerState.size > 0) return void setTimeout(check, 20);
      clearTimeout(deadline);
      resolveStopped();
    };
    check();
  }
  // Repeated signals (Ctrl-C reaches npm and this process both) are ignored while stopping.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let index = 0; index < workers; index++) fork(index);
  return { listening, stopped };
}

function formatHost(address: string | null): string {
  if (address === null || address === '' || address === '::' || address === '0.0.0.0') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

/** This process's worker index under `--workers`, or undefined when it is no worker. */
export function workerIndex(env: Readonly<Record<string, string | undefined>>): number | undefined {
  if (!cluster.isWorker) return undefined;
  return Number(env[WORKER_INDEX_VARIABLE] ?? '0');
}

/**
 * In a worker: `stop` once the primary is gone (killed, or its IPC channel closed), so that no
 * worker outlives it serving a port nobody manages.
 */
export function stopWithPrimary(stop: () => void): void {
  process.on('disconnect', stop);
}

/** In a worker: rate-limit counters that take their tokens from the primary's broker. */
export function workerCounters(): CounterStore {
  let nextId = 0;
  const pending = new Map<number, (reply: TakeReply) => void>();
  process.on('message', (message: TakeReply) => {
    if (message?.channel !== COUNTER_CHANNEL) return;
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  return leasedCounters(
    (request) =>
      new Promise((resolve) => {
        const id = ++nextId;
        pending.set(id, resolve);
        process.send!({ channel: COUNTER_CHANNEL, id, ...request } satisfies TakeRequest);
      }),
  );
}
