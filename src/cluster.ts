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
 * every worker to shut down cleanly and exits once they all have.
 */

/** Which worker this process is (0 … N−1), so that exactly one runs what must run once (Kafka). */
export const WORKER_INDEX_VARIABLE = 'PETSTORE_WORKER_INDEX';

export type Primary = { readonly stopped: Promise<void> };

const STOP_TIMEOUT_MS = 30_000;

export function runPrimary(workers: number, logger: Logger): Primary {
  let stopping = false;
  const broker = new CounterBroker(() => Object.keys(cluster.workers ?? {}).length);
  const indexOf = new Map<Worker, number>();
  const fork = (index: number) => {
    const worker = cluster.fork({ [WORKER_INDEX_VARIABLE]: String(index) });
    indexOf.set(worker, index);
  };

  cluster.on('message', (worker, message: TakeRequest) => {
    if (message?.channel !== COUNTER_CHANNEL) return;
    worker.send({ channel: COUNTER_CHANNEL, ...broker.take(message) } satisfies TakeReply);
  });
  cluster.on('exit', (worker, code, signal) => {
    const index = indexOf.get(worker)!;
    indexOf.delete(worker);
    if (stopping) return;
    logger.error({ worker: index, pid: worker.process.pid, code, signal }, 'worker died: starting another');
    fork(index);
  });
  for (let index = 0; index < workers; index++) fork(index);

  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal, workers: indexOf.size }, 'shutting down the workers');
      for (const worker of indexOf.keys()) worker.process.kill('SIGTERM');
      // A worker that has not finished its clean shutdown by then is stopped hard.
      const deadline = setTimeout(() => {
        for (const worker of indexOf.keys()) worker.process.kill('SIGKILL');
      }, STOP_TIMEOUT_MS);
      const check = () => {
        if (indexOf.size > 0) return void setTimeout(check, 20);
        clearTimeout(deadline);
        resolve();
      };
      check();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  return { stopped };
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
