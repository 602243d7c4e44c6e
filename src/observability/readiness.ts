import { type EventStore, StoreUnavailableError } from '../application/ports/event-store.ts';
import type { Clock } from '../shared/context.ts';
import { lagMs, type StoreReader } from './lag.ts';
import type { StoreWrites } from './store-writes.ts';

export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

export type ReadinessOptions = {
  readonly store: EventStore;
  /** This process's read models, as they are at the moment of the check. */
  readonly readers: () => readonly StoreReader[];
  /** A read model whose oldest unapplied event is older than this is lagging (READINESS_MAX_LAG_SECONDS). */
  readonly maxLagMs: number;
  readonly clock: Clock;
  /** Why the read models cannot be trusted whatever their lag (events of a newer release), if they cannot. */
  readonly untrusted?: () => string | undefined;
  /** A store that takes longer to answer counts as not answering. */
  readonly timeoutMs?: number;
  /** Whether this process's appends find the store taking writes (see store-writes.ts). */
  readonly writes?: Pick<StoreWrites, 'refusal' | 'probe'>;
};

/**
 * Ready when the read models can be trusted (`untrusted`), the store answers every question of the
 * check within the timeout, all of them together, takes writes (after an append it refused, until
 * a probe or an append finds it writable again), and every read model is within `maxLagMs` of it.
 * Checks that overlap share one run: probes cost the store one query each, however many arrive.
 */
export function storeReadiness(options: ReadinessOptions): () => Promise<Readiness> {
  let running: Promise<Readiness> | undefined;
  return () => {
    running ??= check(options).finally(() => (running = undefined));
    return running;
  };
}

async function check(options: ReadinessOptions): Promise<Readiness> {
  const untrusted = options.untrusted?.();
  if (untrusted !== undefined) return { ready: false, reason: untrusted };
  try {
    // One deadline for the whole check, which a probe's own timeout must not outlast: with a
    // deadline per question, three read models and a slow store took four of them.
    return await withTimeout(lags(options), options.timeoutMs ?? 2_000);
  } catch (error) {
    // A store the adapter says is out of reach: its reason for a public probe, not a client's message.
    const why = error instanceof StoreUnavailableError ? error.summary : (error as Error).message;
    return { ready: false, reason: `the event store does not answer (${why})` };
  }
}

async function lags(options: ReadinessOptions): Promise<Readiness> {
  const refused = await writesRefused(options.writes);
  if (refused !== undefined) return refused;
  await options.store.headPosition();
  const readers = options.readers();
  const nowMs = options.clock.nowMs();
  const lags = await Promise.all(readers.map((reader) => lagMs(options.store, reader.checkpoint, nowMs)));
  const lagging = lags.findIndex((lag) => lag > options.maxLagMs);
  if (lagging === -1) return { ready: true };
  return {
    ready: false,
    reason: `read model ${readers[lagging]!.name} is ${(lags[lagging]! / 1000).toFixed(1)} s behind the event store (the limit is ${options.maxLagMs / 1000} s)`,
  };
}

/** Not ready while an append found the store refusing writes and a probe finds it still does. */
async function writesRefused(writes: ReadinessOptions['writes']): Promise<Readiness | undefined> {
  if (writes?.refusal() === undefined || (await writes.probe())) return undefined;
  return { ready: false, reason: `the event store refuses writes: ${writes.refusal()?.summary}` };
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
