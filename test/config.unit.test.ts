import { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  it('defaults to the embedded store on 127.0.0.1:3000 with .data', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: path.resolve('.data'),
      eventStoreUrl: undefined,
      redisUrl: undefined,
    });
  });

  it('reads PORT, HOST and PETSTORE_DATA_DIR', () => {
    const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', PETSTORE_DATA_DIR: '/var/lib/petstore' });
    expect([config.port, config.host, config.dataDir]).toEqual([8080, '0.0.0.0', '/var/lib/petstore']);
  });

  it('reads HOST and METRICS_HOST without the whitespace around them, as numbers are read', () => {
    const config = loadConfig({ HOST: ' 0.0.0.0\t', METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1 ' });
    expect([config.host, config.metrics.host]).toEqual(['0.0.0.0', '127.0.0.1']);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(3000);
  });

  it('treats a variable of spaces alone as unset, as an empty one, rather than as port 0', () => {
    expect(loadConfig({ PORT: ' ', METRICS_PORT: ' \t' }).port).toBe(3000);
    expect(loadConfig({ PORT: ' ', METRICS_PORT: ' \t' }).metrics.port).toBeUndefined();
  });

  it('reads a number with spaces around it', () => {
    expect(loadConfig({ PORT: ' 8080 ' }).port).toBe(8080);
  });

  it.each([
    ['PORT', '0x0F5F'],
    ['PORT', '1e3'],
    ['PORT', '80.0'],
    ['PORT', '+80'],
    ['PORT', '8 0'],
    ['METRICS_PORT', '0x24F8'],
    ['WORKERS', '2e0'],
    ['BODY_LIMIT_BYTES', '0x4000'],
    ['PET_ID_BLOCK_SIZE', '1e3'],
    ['IDEMPOTENCY_KEY_TTL_HOURS', '0b11000'],
    ['SNAPSHOT_EVERY_EVENTS', '5e4'],
    ['MIN_POSITION_WAIT_MS', '2_000'],
    ['ANONYMOUS_PER_MINUTE', '0o24'],
    ['ANONYMOUS_PER_DAY', 'Infinity'],
    ['RATE_LIMIT_BAN_SECONDS', '6e2'],
  ])('refuses %s=%s: a whole number is written in decimal digits alone', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      `Invalid configuration:\n  ${name}=${JSON.stringify(value)}: must be a whole number, in decimal digits`,
    );
  });

  it.each(['0x0A', '1e1', '.5', 'Infinity'])(
    'refuses READINESS_MAX_LAG_SECONDS=%s: a number is written in decimal digits alone',
    (value) => {
      expect(() => loadConfig({ READINESS_MAX_LAG_SECONDS: value })).toThrow(
        `Invalid configuration:\n  READINESS_MAX_LAG_SECONDS=${JSON.stringify(value)}: must be a number, in decimal digits`,
      );
    },
  );

  it('reads READINESS_MAX_LAG_SECONDS with a fraction', () => {
    expect(loadConfig({ READINESS_MAX_LAG_SECONDS: '2.5' }).readinessMaxLagMs).toBe(2500);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['LOG_LEVEL', 'loud'],
    ['EVENT_STORE_URL', 'http://localhost:2113'],
    ['REDIS_URL', 'localhost:6379'],
    ['KAFKA_FORWARDER', 'yes'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(`${name}=${JSON.stringify(value)}`);
  });

  it.each(['redis://:::6379', 'redis://host:99999', 'redis://ho st:6379'])(
    'refuses REDIS_URL=%s, a URL the Redis client cannot parse, at start-up',
    (value) => {
      expect(() => loadConfig({ REDIS_URL: value })).toThrow(
        `Invalid configuration:\n  REDIS_URL=${JSON.stringify(value)}: cannot be read as a URL`,
      );
    },
  );

  it('refuses REDIS_URL whose password has a % that starts no escape, which the Redis client cannot decode, at start-up', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis://:50%off@redis:6379' })).toThrow(
      'Invalid configuration:\n  REDIS_URL="redis://:50%off@redis:6379": has a % in its user or password that starts no %XX escape (write % as %25)',
    );
  });

  it('refuses KAFKA_FORWARDER=true without KAFKA_BROKERS at start-up', () => {
    expect(() => loadConfig({ KAFKA_FORWARDER: 'true' })).toThrow(
      'KAFKA_BROKERS="": is required when KAFKA_FORWARDER=true (host:port, comma-separated)',
    );
  });

  it.each([
    ['kafka', '"kafka"'],
    ['kafka:9092, kafka2', '"kafka2"'],
    ['kafka:90 92', '"kafka:90 92"'],
    ['kafka:port', '"kafka:port"'],
    ['kafka:0', '"kafka:0"'],
    ['kafka:70000', '"kafka:70000"'],
    ['::1:9092', '"::1:9092"'],
  ])('refuses KAFKA_BROKERS=%s at start-up, naming the broker that is not host:port', (value, named) => {
    expect(() => loadConfig({ KAFKA_BROKERS: value })).toThrow(
      `Invalid configuration:\n  KAFKA_BROKERS=${JSON.stringify(value)}: must be host:port, comma-separated (not ${named})`,
    );
  });

  it.each(['localhost:4318', 'collector:4317', 'grpc://collector:4317'])(
    'refuses OTEL_EXPORTER_OTLP_ENDPOINT=%s, which the default (HTTP) exporter cannot send to, at start-up',
    (value) => {
      expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: value })).toThrow(
        `Invalid configuration:\n  OTEL_EXPORTER_OTLP_ENDPOINT=${JSON.stringify(value)}: must be an http:// or https:// URL`,
      );
    },
  );

  it.each(['.', '..', 'petstore events'])(
    'refuses KAFKA_TOPIC=%s, a name Kafka refuses, at start-up',
    (value) => {
      expect(() => loadConfig({ KAFKA_TOPIC: value })).toThrow(
        `Invalid configuration:\n  KAFKA_TOPIC=${JSON.stringify(value)}: must be a Kafka topic name: up to 249 of a-z A-Z 0-9 . _ -, and not . or ..`,
      );
    },
  );

  it('reads KAFKA_TOPIC names with dots, such as ...events or a.b', () => {
    expect(loadConfig({ KAFKA_TOPIC: '...' }).kafka.topic).toBe('...');
    expect(loadConfig({ KAFKA_TOPIC: 'a.b' }).kafka.topic).toBe('a.b');
  });

  it.each(['collector:4317', 'unix:///run/otel/collector.sock'])(
    'accepts OTEL_EXPORTER_OTLP_ENDPOINT=%s when the protocol is grpc, as the gRPC exporter does',
    (value) => {
      const config = loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: value });
      expect(config.tracing.otlpEndpoint).toBe(value);
    },
  );

  it('splits KAFKA_BROKERS on commas', () => {
    expect(loadConfig({ KAFKA_BROKERS: 'a:9092, b:9092' }).kafka.brokers).toEqual(['a:9092', 'b:9092']);
  });

  it('turns introspection and the developer pages off in production unless asked for', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({
      graphql: { introspection: false },
      devPages: false,
    });
    expect(loadConfig({ NODE_ENV: 'production', DEV_PAGES: 'true' }).devPages).toBe(true);
    expect(loadConfig({})).toMatchObject({ graphql: { introspection: true }, devPages: true });
    expect(loadConfig({ DEV_PAGES: 'false' }).devPages).toBe(false);
  });

  it('still reads GRAPHQL_GRAPHIQL, the older name of DEV_PAGES; DEV_PAGES wins', () => {
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_GRAPHIQL: 'true' }).devPages).toBe(true);
    expect(loadConfig({ GRAPHQL_GRAPHIQL: 'false', DEV_PAGES: 'true' }).devPages).toBe(true);
  });

  it('leaves metrics and tracing off unless their variables are set', () => {
    expect(loadConfig({})).toMatchObject({
      metrics: { port: undefined, host: '127.0.0.1' },
      tracing: { otlpEndpoint: undefined },
      readinessMaxLagMs: 10_000,
      accessLog: false,
    });
    expect(
      loadConfig({ METRICS_PORT: '9464', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toMatchObject({ metrics: { port: 9464 }, tracing: { otlpEndpoint: 'http://collector:4318' } });
  });

  it('reads TRUST_PROXY as the proxies’ addresses and CIDR ranges, and false by default', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,fd00::/8' }).trustProxy).toEqual([
      '10.0.0.1',
      '192.168.0.0/16',
      'fd00::/8',
    ]);
  });

  it.each(['true', '1', '2', '10.0.0.0/33', 'proxy.internal'])(
    'refuses TRUST_PROXY=%s: X-Forwarded-For would be forgeable or the entry is not an address',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        `TRUST_PROXY=${JSON.stringify(value)}: must be false or the proxies' addresses or CIDR ranges, comma-separated (not ${JSON.stringify(value)})`,
      );
    },
  );

  it.each(['0.0.0.0/0', '10.0.0.1, ::/0'])(
    'refuses TRUST_PROXY=%s: a range of every address trusts any sender, as true would',
    (value) => {
      const everyone = value.split(',').at(-1)!.trim();
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        `TRUST_PROXY=${JSON.stringify(value)}: must name the proxies, not every address (${JSON.stringify(everyone)} trusts any sender, as true would)`,
      );
    },
  );

  it('limits requests without a key to 20 a minute and 200 a day per address unless told otherwise', () => {
    expect(loadConfig({}).anonymousLimits).toEqual({ perMinute: 20, perDay: 200 });
    expect(loadConfig({ ANONYMOUS_PER_MINUTE: '50', ANONYMOUS_PER_DAY: '500' }).anonymousLimits).toEqual({
      perMinute: 50,
      perDay: 500,
    });
  });

  it('refuses METRICS_PORT equal to PORT on the same host, naming both', () => {
    expect(() => loadConfig({ PORT: '3931', METRICS_PORT: '3931' })).toThrow(
      'Invalid configuration:\n  METRICS_PORT="3931": must differ from PORT: the metrics listener and the API cannot share port 3931 on 127.0.0.1',
    );
  });

  it('refuses METRICS_PORT equal to PORT when either host is a wildcard', () => {
    expect(() =>
      loadConfig({ PORT: '3931', HOST: '0.0.0.0', METRICS_PORT: '3931', METRICS_HOST: '127.0.0.1' }),
    ).toThrow('cannot share port 3931 on 0.0.0.0 and 127.0.0.1');
  });

  it('lets METRICS_PORT equal PORT on two distinct addresses', () => {
    expect(
      loadConfig({ PORT: '9464', HOST: '10.0.0.5', METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' }),
    ).toMatchObject({ port: 9464, metrics: { port: 9464, host: '127.0.0.1' } });
  });

  it('lets PORT and METRICS_PORT both be 0, two free ports of their own', () => {
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' })).toMatchObject({ port: 0, metrics: { port: 0 } });
  });

  it('refuses an anonymous per-minute limit above the per-day one', () => {
    expect(() => loadConfig({ ANONYMOUS_PER_MINUTE: '500', ANONYMOUS_PER_DAY: '50' })).toThrow(
      'ANONYMOUS_PER_MINUTE="500": must not exceed ANONYMOUS_PER_DAY',
    );
  });

  it('honours a failpoint only in tests', () => {
    expect(loadConfig({ PETSTORE_FAILPOINT: 'kill-between-streams' }).failpoint).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'test', PETSTORE_FAILPOINT: 'kill-between-streams' }).failpoint).toBe(
      'kill-between-streams',
    );
  });

  it('runs one worker in development and one per core in production unless WORKERS says', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ NODE_ENV: 'production' }).workers).toBe(availableParallelism());
    expect(loadConfig({ NODE_ENV: 'production', WORKERS: '3' }).workers).toBe(3);
  });

  it.each(['0', '1.5', 'many', '257'])('refuses WORKERS=%s', (value) => {
    expect(() => loadConfig({ WORKERS: value })).toThrow(ConfigError);
  });

  it('freezes the result', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });
});
