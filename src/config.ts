import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

/**
 * The environment, parsed once at start-up into a typed, frozen object. Nothing below the entry
 * point reads `process.env`: it gets what it needs from here. A bad value stops start-up with a
 * message naming the variable.
 */

const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/**
 * Numbers are written in decimal digits alone (whitespace around them aside): Number(), which
 * z.coerce uses, takes ' ' for 0, '0x0F5F' for 3935 and '1e3' for 1000.
 */
function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .trim()
    .regex(/^\d+$/, { message: 'must be a whole number, in decimal digits' })
    .transform(Number)
    .pipe(z.number().min(min).max(max));
}

function decimalNumber(exclusiveMin: number, max: number) {
  return z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, { message: 'must be a number, in decimal digits' })
    .transform(Number)
    .pipe(z.number().gt(exclusiveMin).max(max));
}

const port = wholeNumber(0, 65535);

/** A host name or address, whitespace around it aside (as around numbers): no listener takes ` 127.0.0.1`. */
const hostName = z.string().trim().min(1);

/** An IPv4 or IPv6 address, or a CIDR range of either. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * `false`, or the proxies' addresses and CIDR ranges. Not `true` (trust any sender), nor a range of
 * every address (`0.0.0.0/0`, `::/0`: the same), nor a hop count: each lets a client that reaches
 * the server directly forge X-Forwarded-For, and so its per-address limit (Fastify disables hop
 * counts for that reason).
 */
const trustedProxies = z.string().transform((value, context): false | readonly string[] => {
  if (value === 'false' || value === '0') return false;
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isAddressOrRange(entry));
  const everyone = entries.filter((entry) => /\/0+$/.test(entry));
  if (bad.length === 0 && everyone.length === 0) return Object.freeze(entries);
  if (bad.length === 0) {
    context.addIssue({
      code: 'custom',
      message: `must name the proxies, not every address (${everyone.map((entry) => JSON.stringify(entry)).join(', ')} trusts any sender, as true would)`,
    });
    return z.NEVER;
  }
  context.addIssue({
    code: 'custom',
    message: `must be false or the proxies' addresses or CIDR ranges, comma-separated (not ${bad.map((entry) => JSON.stringify(entry)).join(', ')})`,
  });
  return z.NEVER;
});

/**
 * Whether the Redis client can decode the URL's user and password: it passes each through
 * decodeURIComponent, which throws ('URI malformed') on a % that starts no %XX escape, a password
 * written as it is rather than percent-encoded, and the start then failed as unexpected.
 */
function decodesCredentials(url: string): boolean {
  if (!URL.canParse(url)) return true; // refused as no URL
  const { username, password } = new URL(url);
  try {
    decodeURIComponent(username);
    decodeURIComponent(password);
    return true;
  } catch {
    return false;
  }
}

/** The traces' OTLP protocol as the OpenTelemetry SDK picks it: an empty variable counts as unset. */
function otlpProtocol(env: {
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string | undefined;
  OTEL_EXPORTER_OTLP_PROTOCOL?: string | undefined;
}): string {
  const set = (value: string | undefined) => (value?.trim() === '' ? undefined : value?.trim());
  return (
    set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf'
  );
}

/**
 * Why the trace exporter could not send to this endpoint, if it could not. The HTTP exporters
 * (the default, `http/protobuf`, and `http/json`) send to http:// or https:// alone: `localhost:4318`
 * is a URL whose scheme is `localhost:`, and every export would fail with a warning, the service
 * running untraced. The gRPC exporter (`grpc`) takes `host:port` (it adds https://), any scheme it
 * then treats as http, and `unix:///path`: it needs only a URL once https:// is put before a value
 * without a scheme.
 */
function otlpEndpointFault(endpoint: string, protocol: string): string | undefined {
  if (protocol === 'grpc') {
    const url = /^\w{1,8}:\/\//.test(endpoint.trim()) ? endpoint.trim() : `https://${endpoint.trim()}`;
    return URL.canParse(url) ? undefined : 'must be host:port or a URL the gRPC exporter can read';
  }
  const url = URL.parse(endpoint);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:')
    ? undefined
    : 'must be an http:// or https:// URL';
}

/**
 * `host:port`, comma-separated. The Kafka client splits each at its colons and takes the port
 * after the first: a broker without one, or with one that is not a port, would have it retry for
 * ever (`Port should be >= 0 and < 65536. Received type number (NaN)`) rather than fail the start.
 */
const kafkaBrokers = z.string().superRefine((value, context) => {
  const bad = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && !isBroker(entry));
  if (bad.length > 0) {
    context.addIssue({
      code: 'custom',
      message: `must be host:port, comma-separated (not ${bad.map((entry) => JSON.stringify(entry)).join(', ')})`,
    });
  }
});

function isBroker(entry: string): boolean {
  const match = /^[^:\s]+:(\d{1,5})$/.exec(entry);
  return match !== null && Number(match[1]) >= 1 && Number(match[1]) <= 65535;
}

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: port.default(3000),
    /** Server processes on the one port (`petstore start --workers`). Unset: every core in production, else 1. */
    WORKERS: wholeNumber(1, 256).optional(),
    HOST: hostName.default('127.0.0.1'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    PETSTORE_DATA_DIR: z.string().min(1).default('.data'),
    /** Unset: the embedded SQLite store in PETSTORE_DATA_DIR. `kurrentdb://…` or `esdb://…`: KurrentDB. */
    EVENT_STORE_URL: z
      .string()
      .regex(/^(kurrentdb|kdb|esdb|esdb\+discover|kurrentdb\+discover|kdb\+discover):\/\//, {
        message: 'must be a kurrentdb:// or esdb:// connection string',
      })
      .optional(),
    /** Largest accepted request body, in bytes. */
    BODY_LIMIT_BYTES: wholeNumber(1, 10 * 1024 * 1024).default(16 * 1024),
    /** How many pet ids one process reserves from the shared id stream at a time. */
    PET_ID_BLOCK_SIZE: wholeNumber(1, 1_000_000).default(1000),
    /** How long an Idempotency-Key is remembered. */
    IDEMPOTENCY_KEY_TTL_HOURS: wholeNumber(1, 24 * 365).default(24),
    /** How often the read model snapshot is written, in events applied since the last one. */
    SNAPSHOT_EVERY_EVENTS: wholeNumber(1).default(50_000),
    /** How long a request with X-Min-Position waits for the read models before its 503. */
    MIN_POSITION_WAIT_MS: wholeNumber(1, 60_000).default(2000),
    /** How long an event stream's client may take nothing of it, while it has events to send, before it is ended. */
    STREAM_STALL_SECONDS: wholeNumber(1, 3600).default(60),
    /** How many event streams one key may hold open on one process at once. */
    STREAMS_PER_KEY: wholeNumber(1, 100_000).default(20),
    /** How long a request, headers and body, may take to arrive before its 408. */
    REQUEST_TIMEOUT_SECONDS: wholeNumber(1, 3600).default(60),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
      // The Redis client parses it with URL, and a URL it cannot parse would fail the start later,
      // without naming the variable.
      .refine((url) => URL.canParse(url), { message: 'cannot be read as a URL' })
      .refine(decodesCredentials, {
        message: 'has a % in its user or password that starts no %XX escape (write % as %25)',
      })
      .optional(),
    /** Requests without a valid key, per client address: stricter than any plan by default. */
    ANONYMOUS_PER_MINUTE: wholeNumber(1).default(20),
    ANONYMOUS_PER_DAY: wholeNumber(1).default(200),
    /** Seconds a key stays banned after it keeps sending past its limit. */
    RATE_LIMIT_BAN_SECONDS: wholeNumber(1, 7 * 24 * 3600).default(600),
    /** The proxies in front, whose X-Forwarded-For is trusted (for per-address limits). */
    TRUST_PROXY: trustedProxies.default(false),
    KAFKA_BROKERS: kafkaBrokers.optional(),
    /** Kafka's rule for a topic's name: these characters, at most 249, and neither `.` nor `..`. */
    KAFKA_TOPIC: z
      .string()
      .regex(/^(?!\.\.?$)[a-zA-Z0-9._-]{1,249}$/, {
        message: 'must be a Kafka topic name: up to 249 of a-z A-Z 0-9 . _ -, and not . or ..',
      })
      .default('petstore.events'),
    KAFKA_CLIENT_ID: z.string().min(1).default('petstore'),
    /** Run the Kafka forwarder inside the API process (it can also run alone: `petstore forward`). */
    KAFKA_FORWARDER: booleanFlag.default(false),
    /**
     * Test only (honoured when NODE_ENV=test): `kill-between-streams` makes the embedded store kill
     * its own process (SIGKILL) half-way through an atomic append to several streams, after the
     * first stream's events are written and before the commit, for the crash tests of orders;
     * `store-cannot-grow` keeps the embedded store's writer from growing its file, so that it fails
     * with SQLITE_FULL once its pages are full, as on a full disk, until pages are freed;
     * `writer-exits` ends the embedded store's writer thread at its first append, as a bug in it would.
     */
    PETSTORE_FAILPOINT: z.enum(['kill-between-streams', 'store-cannot-grow', 'writer-exits']).optional(),
    /** The API key `petstore projections … --url` sends to a running server (scope admin). */
    PETSTORE_API_KEY: z.string().min(1).optional(),
    /** Unset: on outside production. */
    GRAPHQL_INTROSPECTION: booleanFlag.optional(),
    /** GraphiQL and the API reference page. Unset: on outside production. GRAPHQL_GRAPHIQL is its older name. */
    DEV_PAGES: booleanFlag.optional(),
    GRAPHQL_GRAPHIQL: booleanFlag.optional(),
    /** Prometheus metrics on a listener of their own. Unset: no metrics (and prom-client is not loaded). */
    METRICS_PORT: port.optional(),
    METRICS_HOST: hostName.default('127.0.0.1'),
    /** GET /health/ready fails when a read model's oldest unapplied event is older than this. */
    READINESS_MAX_LAG_SECONDS: decimalNumber(0, 86_400).default(10),
    /** Set: traces go to this OTLP endpoint (the OpenTelemetry SDK reads its other OTEL_* variables). */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
    /** Read only to check OTEL_EXPORTER_OTLP_ENDPOINT (see otlpEndpointFault); the SDK reads them itself. */
    OTEL_EXPORTER_OTLP_PROTOCOL: z.string().optional(),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.string().optional(),
    /** One log line per request. */
    ACCESS_LOG: booleanFlag.default(false),
    /** Unset: pretty on a terminal in development, JSON otherwise. */
    LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  })
  .superRefine((env, context) => {
    if (env.ANONYMOUS_PER_MINUTE > env.ANONYMOUS_PER_DAY) {
      context.addIssue({
        code: 'custom',
        path: ['ANONYMOUS_PER_MINUTE'],
        message: 'must not exceed ANONYMOUS_PER_DAY',
      });
    }
    if (
      env.METRICS_PORT !== undefined &&
      env.METRICS_PORT !== 0 &&
      env.METRICS_PORT === env.PORT &&
      addressesMeet(env.HOST, env.METRICS_HOST)
    ) {
      context.addIssue({
        code: 'custom',
        path: ['METRICS_PORT'],
        message: `must differ from PORT: the metrics listener and the API cannot share port ${env.PORT} on ${env.METRICS_HOST === env.HOST ? env.HOST : `${env.HOST} and ${env.METRICS_HOST}`}`,
      });
    }
    const otlpFault =
      env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
        ? undefined
        : otlpEndpointFault(env.OTEL_EXPORTER_OTLP_ENDPOINT, otlpProtocol(env));
    if (otlpFault !== undefined) {
      context.addIssue({ code: 'custom', path: ['OTEL_EXPORTER_OTLP_ENDPOINT'], message: otlpFault });
    }
    if (env.KAFKA_FORWARDER && env.KAFKA_BROKERS === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['KAFKA_BROKERS'],
        message: 'is required when KAFKA_FORWARDER=true (host:port, comma-separated)',
      });
    }
  });

export type Config = Readonly<{
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  /** Server processes `petstore start` runs on the port (src/cluster.ts). */
  workers: number;
  host: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  dataDir: string;
  eventStoreUrl: string | undefined;
  bodyLimitBytes: number;
  petIdBlockSize: number;
  idempotencyKeyTtlMs: number;
  snapshotEveryEvents: number;
  minPositionWaitMs: number;
  /** An event stream whose client takes nothing for this long is ended (src/http/stalled-stream.ts). */
  streamStallMs: number;
  /** Event streams one key may hold open on one process at once (src/http/stream-slots.ts). */
  streamsPerKey: number;
  /** How long a request, headers and body, may take to arrive before its 408 (src/http/client-errors.ts). */
  requestTimeoutMs: number;
  redisUrl: string | undefined;
  rateLimitBanSeconds: number;
  /** Per client address, for requests without a valid key and for the public routes. */
  anonymousLimits: Readonly<{ perMinute: number; perDay: number }>;
  /** Addresses and CIDR ranges of trusted proxies; false: none. */
  trustProxy: false | readonly string[];
  kafka: Readonly<{
    brokers: readonly string[];
    topic: string;
    clientId: string;
    inProcessForwarder: boolean;
  }>;
  graphql: Readonly<{ introspection: boolean }>;
  /** GraphiQL at /graphiql and the API reference at /docs. */
  devPages: boolean;
  /** Prometheus metrics; port undefined: off. */
  metrics: Readonly<{ port: number | undefined; host: string }>;
  readinessMaxLagMs: number;
  /** Tracing is on when an OTLP endpoint is set. */
  tracing: Readonly<{ otlpEndpoint: string | undefined }>;
  accessLog: boolean;
  logFormat: 'json' | 'pretty' | undefined;
  /** A test's failpoint (PETSTORE_FAILPOINT), only ever set when NODE_ENV=test. */
  failpoint: 'kill-between-streams' | 'store-cannot-grow' | 'writer-exits' | undefined;
  /** For the CLI's calls to a running server; the server itself never uses it. */
  apiKey: string | undefined;
}>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  // A blank variable (`PORT=` in a compose file, or spaces alone) is unset, whatever its kind.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '');
      return `  ${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  return Object.freeze({
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    workers: e.WORKERS ?? (production ? availableParallelism() : 1),
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    dataDir: path.resolve(e.PETSTORE_DATA_DIR),
    eventStoreUrl: e.EVENT_STORE_URL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    petIdBlockSize: e.PET_ID_BLOCK_SIZE,
    idempotencyKeyTtlMs: e.IDEMPOTENCY_KEY_TTL_HOURS * 3600_000,
    snapshotEveryEvents: e.SNAPSHOT_EVERY_EVENTS,
    minPositionWaitMs: e.MIN_POSITION_WAIT_MS,
    streamStallMs: e.STREAM_STALL_SECONDS * 1000,
    streamsPerKey: e.STREAMS_PER_KEY,
    requestTimeoutMs: e.REQUEST_TIMEOUT_SECONDS * 1000,
    redisUrl: e.REDIS_URL,
    rateLimitBanSeconds: e.RATE_LIMIT_BAN_SECONDS,
    anonymousLimits: Object.freeze({ perMinute: e.ANONYMOUS_PER_MINUTE, perDay: e.ANONYMOUS_PER_DAY }),
    trustProxy: e.TRUST_PROXY,
    kafka: Object.freeze({
      brokers: Object.freeze(
        (e.KAFKA_BROKERS ?? '')
          .split(',')
          .map((b) => b.trim())
          .filter(Boolean),
      ),
      topic: e.KAFKA_TOPIC,
      clientId: e.KAFKA_CLIENT_ID,
      inProcessForwarder: e.KAFKA_FORWARDER,
    }),
    graphql: Object.freeze({ introspection: e.GRAPHQL_INTROSPECTION ?? !production }),
    devPages: e.DEV_PAGES ?? e.GRAPHQL_GRAPHIQL ?? !production,
    metrics: Object.freeze({ port: e.METRICS_PORT, host: e.METRICS_HOST }),
    readinessMaxLagMs: e.READINESS_MAX_LAG_SECONDS * 1000,
    tracing: Object.freeze({ otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT }),
    accessLog: e.ACCESS_LOG,
    logFormat: e.LOG_FORMAT,
    failpoint: e.NODE_ENV === 'test' ? e.PETSTORE_FAILPOINT : undefined,
    apiKey: e.PETSTORE_API_KEY,
  });
}

/** Whether listeners on these hosts would take the same address for one port: the same host, or a wildcard. */
function addressesMeet(host: string, other: string): boolean {
  const wildcard = (name: string) => name === '0.0.0.0' || name === '::';
  return host === other || wildcard(host) || wildcard(other);
}
