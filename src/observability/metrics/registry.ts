import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventStore } from '../../application/ports/event-store.ts';
import type { Clock } from '../../shared/context.ts';
import { lagMs, type StoreReader } from '../lag.ts';

/**
 * Every metric of the service, in one registry that the metrics listener serves. Loaded only when
 * METRICS_PORT is set. Label values come from closed sets (route patterns, methods, statuses,
 * plans) or are capped (GraphQL operation names), so a client cannot grow the registry at will.
 */
export type Metrics = ReturnType<typeof createMetrics>;

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by route pattern, method and status: time from arrival until the response is handed to the socket (a stream: until it starts).',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: SECONDS,
      registers,
    }),
    graphqlOperations: new Counter({
      name: 'graphql_operations_total',
      help: 'GraphQL operations run, by operation name ("" when anonymous) and type.',
      labelNames: ['operation_name', 'operation_type'] as const,
      registers,
    }),
    rateLimitDecisions: new Counter({
      name: 'petstore_rate_limit_decisions_total',
      help: 'Rate-limit decisions (allowed, limited, banned) by plan; anonymous: requests without a valid key, public: the public routes.',
      labelNames: ['decision', 'plan'] as const,
      registers,
    }),
    appendDuration: new Histogram({
      name: 'petstore_eventstore_append_duration_seconds',
      help: 'Appends to the event store, until durable, by result (ok, wrong_expected_revision; unavailable: refused for now, a full disk, a held write lock, KurrentDB out of reach, answered 503; error).',
      labelNames: ['result'] as const,
      buckets: SECONDS,
      registers,
    }),
    openStreams: new Gauge({
      name: 'petstore_open_streams',
      help: "Event streams open on this process (REST's server-sent events, GraphQL subscriptions), each holding one of its key's STREAMS_PER_KEY.",
      registers,
    }),
    appendEvents: new Histogram({
      name: 'petstore_eventstore_append_events',
      help: 'Events per append (the batch size of one atomic append).',
      buckets: [1, 2, 5, 10, 25, 50, 100, 500],
      registers,
    }),
  };
}

/** The read models' positions and lags, measured when scraped. */
export function readModelGauges(
  metrics: Metrics,
  store: EventStore,
  readers: () => readonly StoreReader[],
  clock: Clock,
): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'petstore_projection_position',
    help: 'The store position up to which each read model includes every event (-1: none yet).',
    labelNames: ['projection'] as const,
    registers,
    collect() {
      for (const reader of readers()) this.set({ projection: reader.name }, positionValue(reader.checkpoint));
    },
  });
  new Gauge({
    name: 'petstore_projection_lag_seconds',
    help: 'Age of the oldest event each read model has not applied yet (0: it has every event).',
    labelNames: ['projection'] as const,
    registers,
    async collect() {
      for (const reader of readers())
        this.set({ projection: reader.name }, (await lagMs(store, reader.checkpoint, clock.nowMs())) / 1000);
    },
  });
}

/**
 * A Prometheus sample is a float64: positions above 2^53 (KurrentDB packs two numbers into one) lose
 * their last digits, which is enough to see movement and order.
 */
export function positionValue(position: bigint | undefined): number {
  return position === undefined ? -1 : Number(position);
}

/** The Kafka forwarder's checkpoint, lag and failures; returns what the forwarder reports to. */
export function forwarderMetrics(
  metrics: Metrics,
  store: EventStore,
  clock: Clock,
): {
  onCheckpoint(position: bigint): void;
  onResume(checkpoint: bigint | undefined): void;
  onError(error: unknown): void;
} {
  const registers = [metrics.registry];
  let checkpoint: bigint | undefined;
  new Gauge({
    name: 'petstore_forwarder_position',
    help: 'The store position up to which Kafka has acknowledged every event (-1: none yet).',
    registers,
    collect() {
      this.set(positionValue(checkpoint));
    },
  });
  new Gauge({
    name: 'petstore_forwarder_lag_seconds',
    help: 'Age of the oldest event not yet acknowledged by Kafka (0: every event is on the topic).',
    registers,
    async collect() {
      this.set((await lagMs(store, checkpoint, clock.nowMs())) / 1000);
    },
  });
  const errors = new Counter({
    name: 'petstore_forwarder_errors_total',
    help: 'Failures that ended a forwarding session (broker or store down); it resumes from its checkpoint.',
    registers,
  });
  return {
    onCheckpoint: (position) => (checkpoint = position),
    // Also when the broker has lost the checkpoint (its topic deleted): what it holds is then nothing.
    onResume: (resumedAfter) => (checkpoint = resumedAfter),
    onError: () => errors.inc(),
  };
}
