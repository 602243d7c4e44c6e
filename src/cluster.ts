import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { CounterStore } from './application/ports/counters.ts';
import { systemClock } from './shared/context.ts';
import {
  COUNTER_CHANNEL,
  CounterBroker,
  type GiveBackRequest,
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
 * The primary serves nothing itself. It replaces a worker that dies (at once the first time, then
 * after a pause that doubles up to 30 s while the worker keeps dying within a minute of its start),
 * answers the metrics listener with every worker's metrics, and on SIGTERM or SIGINT asks every
 * worker to shut down cleanly and exits once they all have, with status 1 if one did not stop
 * cleanly. A worker that fails before the service ever listened (a port in use, a damaged store)
 * would fail again: the primary stops them all and exits with status 1. Such a failure is one line,
 * as without workers: each worker sends its reason to the primary, which has the first printed.
 */

/** Which worker this process is (0 … N−1), so that exactly one runs what must run once (Kafka). */
export const WORKER_INDEX_VARIABLE = 'PETSTORE_WORKER_INDEX';

/** The primary's requests for a worker's metrics, and their answers (prom-client's JSON form). */
export const METRICS_CHANNEL = 'petstore-metrics';
type MetricsRequest = { readonly channel: typeof METRICS_CHANNEL; readonly id: number };
type MetricsReply = {
  readonly channel: typeof METRICS_CHANNEL;
  readonly id: number;
  readonly metrics: unknown[];
};

/** A worker's one-line reason it could not start (a port in use), for the primary to print once. */
const START_FAILURE_CHANNEL = 'petstore-start-failure';
type StartFailure = { readonly channel: typeof START_FAILURE_CHANNEL; readonly message: string };

export type Primary = {
  /** Every worker listens (the address is the first one's); rejects if one fails to start. */
  readonly listening: Promise<string>;
  /** Every worker has exited after a stop (a signal, or a worker that failed to start). */
  readonly stopped: Promise<void>;
  /** Each worker's metrics (prom-client's JSON form), from those that answer within `timeoutMs`. */
  collectMetrics(timeoutMs: number): Promise<unknown[][]>;
};

const STOP_TIMEOUT_MS = 30_000;
/** A worker that dies sooner than this after it started is replaced after a pause… */
const STEADY_MS = 60_000;
/** …which starts at this and doubles with each such death in a row, up to the maximum. */
const FIRST_PAUSE_MS = 1_000;
const MAX_PAUSE_MS = 30_000;
/** How long a worker's reason for failing to start may trail its exit. */
const REASON_WAIT_MS = 200;

type WorkerState = { index: number; startedAt: number; listened: boolean; quickDeaths: number };

export function runPrimary(
  workers: number,
  logger: Logger,
  onStartFailure: (message: string) => void,
): Primary {
  let stopping = false;
  let listened = false;
  let startFailed = false;
  /** Whether the reason the service failed to start has been told (once, whichever worker told it). */
  let failureTold = false;
  /** Resolves once a failed start has been told: `stopped` waits for it. */
  let told: Promise<void> = Promise.resolve();
  const broker = new CounterBroker(() => Object.keys(cluster.workers ?? {}).length, systemClock);
  const workerState = new Map<Worker, WorkerState>();
  const metricsWaiting = new Map<number, (metrics: unknown[]) => void>();
  let nextMetricsId = 0;
  let resolveListening!: (address: string) => void;
  let rejectListening!: (error: Error) => void;
  const listening = new Promise<string>((resolve, reject) => {
    resolveListening = resolve;
    rejectListening = reject;
  });
  listening.catch(() => {}); // the caller may only await `stopped`
  /** The workers (by index) that have listened: a replacement of one that listened counts once. */
  const listenedIndexes = new Set<number>();
  let firstAddress: string | undefined;

  const fork = (index: number, quickDeaths: number) => {
    const worker = cluster.fork({ [WORKER_INDEX_VARIABLE]: String(index) });
    // A worker gone while a message to it was on its way: nothing to do, its exit is handled.
    worker.on('error', (error: Error) =>
      logger.debug({ worker: index, err: error }, 'message to a worker lost'),
    );
    workerState.set(worker, { index, startedAt: Date.now(), listened: false, quickDeaths });
  };
  const sendTo = (worker: Worker, message: TakeReply | MetricsRequest) => {
    if (worker.isConnected()) worker.send(message, () => {});
  };

  cluster.on('message', (worker, message: TakeRequest | GiveBackRequest | MetricsReply | StartFailure) => {
    if (message?.channel === START_FAILURE_CHANNEL) {
      // Before the service listens, every worker may fail alike: the first says why for them all.
      if (listened || !failureTold) onStartFailure(message.message);
      if (!listened) startFailed = failureTold = true;
      return;
    }
    if (message?.channel === METRICS_CHANNEL) {
      metricsWaiting.get(message.id)?.(message.metrics);
      return;
    }
    if (message?.channel !== COUNTER_CHANNEL) return;
    if ('giveBack' in message) return broker.giveBack(message);
    sendTo(worker, { channel: COUNTER_CHANNEL, ...broker.take(message) });
  });
  cluster.on('listening', (worker, address) => {
    const state = workerState.get(worker);
    if (state === undefined || state.listened) return;
    state.listened = true;
    firstAddress ??= `http://${formatHost(address.address)}:${address.port}`;
    listenedIndexes.add(state.index);
    if (!listened && listenedIndexes.size === workers) {
      listened = true;
      resolveListening(firstAddress);
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const state = workerState.get(worker)!;
    workerState.delete(worker);
    if (stopping) {
      // A worker that failed its shutdown (its own deadline, or this one's SIGKILL) fails the stop.
      // After a failed start the others are stopped as they start, and the failure is told already.
      // A worker still starting (loading its modules, catching up: a replacement, or a stop soon
      // after the start) has no handler yet for the SIGTERM sent below, or a terminal's SIGINT,
      // and ends by it: it had nothing to drain, so that is the clean stop of a starting worker.
      const stoppedWhileStarting = !state.listened && (signal === 'SIGTERM' || signal === 'SIGINT');
      if (code !== 0 && !startFailed && !stoppedWhileStarting) {
        process.exitCode = 1;
        logger.error(
          { worker: state.index, workerPid: worker.process.pid, code, signal },
          'worker did not stop cleanly',
        );
      }
      return;
    }
    if (!listened && !state.listened) {
      startFailed = true;
      const exited = `worker ${state.index} exited before it listened (${code === null ? `signal ${signal}` : `code ${code}`})`;
      rejectListening(new Error(exited));
      // A reason it sent may still be on its way (its exit can be handled first): the exit itself is
      // told only if none comes.
      if (!failureTold)
        told = new Promise((resolve) =>
          setTimeout(() => {
            if (!failureTold) onStartFailure(exited);
            failureTold = true;
            resolve();
          }, REASON_WAIT_MS),
        );
      return stop('SIGTERM', 1);
    }
    if (code === 0) {
      // It stopped cleanly: an operator's SIGTERM to it (a rolling restart), not a crash. Its
      // replacement starts at once, and the pauses after quick deaths start again from none.
      logger.info(
        { worker: state.index, workerPid: worker.process.pid, code, signal },
        'worker stopped: starting another',
      );
      return fork(state.index, 0);
    }
    const quickDeaths = Date.now() - state.startedAt < STEADY_MS ? state.quickDeaths + 1 : 0;
    const pauseMs = quickDeaths === 0 ? 0 : Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (quickDeaths - 1));
    logger.error(
      { worker: state.index, workerPid: worker.process.pid, code, signal, pauseMs },
      'worker died: starting another',
    );
    setTimeout(() => stopping || fork(state.index, quickDeaths), pauseMs);
  });

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  function stop(signal: NodeJS.Signals, exitCode = 0): void {
    if (stopping) return;
    stopping = true;
    if (exitCode !== 0) process.exitCode = exitCode;
    logger.info({ signal, workers: workerState.size }, 'shutting down the workers');
    for (const worker of workerState.keys()) worker.process.kill('SIGTERM');
    // A worker that has not finished its clean shutdown by then is stopped hard.
    const deadline = setTimeout(() => {
      for (const worker of workerState.keys()) worker.process.kill('SIGKILL');
    }, STOP_TIMEOUT_MS);
    const check = () => {
      if (workerState.size > 0) return void setTimeout(check, 20);
      clearTimeout(deadline);
      void told.then(resolveStopped);
    };
    check();
  }
  // Repeated signals (Ctrl-C reaches npm and this process both) are ignored while stopping.
  process.on('SIGTERM', (signal) => stop(signal));
  process.on('SIGINT', (signal) => stop(signal));

  async function collectMetrics(timeoutMs: number): Promise<unknown[][]> {
    const asks = [...workerState.keys()]
      .filter((worker) => worker.isConnected())
      .map(
        (worker) =>
          new Promise<unknown[] | undefined>((resolve) => {
            const id = ++nextMetricsId;
            const timer = setTimeout(() => {
              metricsWaiting.delete(id);
              resolve(undefined);
            }, timeoutMs);
            metricsWaiting.set(id, (metrics) => {
              clearTimeout(timer);
              metricsWaiting.delete(id);
              resolve(metrics);
            });
            sendTo(worker, { channel: METRICS_CHANNEL, id });
          }),
      );
    return (await Promise.all(asks)).filter((metrics) => metrics !== undefined);
  }

  for (let index = 0; index < workers; index++) fork(index, 0);
  return { listening, stopped, collectMetrics };
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
 * In a worker: `stop` (a clean shutdown) once the primary is gone (killed, or its channel closed),
 * so that no worker outlives it. Node's cluster module would otherwise exit the worker at once on
 * that disconnect, cutting its requests short; marking the disconnect as expected stops it.
 */
export function stopWithPrimary(stop: () => void): void {
  process.prependOnceListener('disconnect', () => {
    if (cluster.worker !== undefined) cluster.worker.exitedAfterDisconnect = true;
    stop();
  });
}

/**
 * In a worker: answers the primary's metrics requests, at once with nothing until `serve` gives a
 * source (while the server starts), so that a scrape never waits on a worker still catching up.
 */
export function answerMetricsRequests(): { serve(metrics: () => Promise<unknown[]>): void } {
  let source: () => Promise<unknown[]> = async () => [];
  process.on('message', (message: MetricsRequest) => {
    if (message?.channel !== METRICS_CHANNEL) return;
    source().then(
      (metrics) => sendToPrimary({ channel: METRICS_CHANNEL, id: message.id, metrics }),
      () => sendToPrimary({ channel: METRICS_CHANNEL, id: message.id, metrics: [] }),
    );
  });
  return {
    serve(metrics) {
      source = metrics;
    },
  };
}

/** In a worker that could not start: its reason, for the primary to print; resolves once sent. */
export function reportStartFailure(message: string): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    const failure: StartFailure = { channel: START_FAILURE_CHANNEL, message };
    process.send!(failure, undefined, {}, () => resolve());
  });
}

function sendToPrimary(message: MetricsReply | TakeRequest | GiveBackRequest): void {
  if (process.connected) process.send!(message, undefined, {}, () => {});
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
      new Promise((resolve, reject) => {
        if (!process.connected) return reject(new Error('the primary process is gone'));
        const id = ++nextId;
        pending.set(id, resolve);
        sendToPrimary({ channel: COUNTER_CHANNEL, id, ...request });
      }),
    (request) => sendToPrimary({ channel: COUNTER_CHANNEL, ...request }),
  );
}
