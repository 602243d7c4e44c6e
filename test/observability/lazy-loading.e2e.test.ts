import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Start-up time matters (see the benchmarks): metrics, tracing, the developer pages, Redis and
 * Kafka load their libraries only when they are on. Proven on a real server process that records what it loads.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => temp?.remove());

/** Starts `petstore start`, stops it once it listens, and returns every module URL it loaded. */
async function modulesLoaded(env: Record<string, string>): Promise<string[]> {
  temp = makeTempDir('petstore-lazy-');
  const child = spawn(
    process.execPath,
    [
      '--import',
      path.join(ROOT, 'test/support/record-module-loads.ts'),
      path.join(ROOT, 'bin/petstore.js'),
      'start',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        LOG_LEVEL: 'info',
        PETSTORE_DATA_DIR: temp.dir,
        NODE_ENV: 'test',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.includes('"msg":"pet store listening"')) break;
  }
  child.kill('SIGTERM');
  await once(child, 'close');
  const line = stderr.split('\n').find((entry) => entry.startsWith('loaded-modules: '));
  if (line === undefined) throw new Error(`no list of modules:\n${stderr}`);
  return JSON.parse(line.slice('loaded-modules: '.length)) as string[];
}

const from = (modules: string[], packageName: string) =>
  modules.filter((url) => url.includes(`/node_modules/${packageName}/`));

describe('a server with neither metrics nor tracing configured', () => {
  it('loads neither prom-client nor OpenTelemetry', async () => {
    const modules = await modulesLoaded({ METRICS_PORT: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    expect(from(modules, 'prom-client')).toEqual([]);
    expect(from(modules, '@opentelemetry')).toEqual([]);
    expect(from(modules, 'fastify')).not.toEqual([]);
  });
});

describe('a server without REDIS_URL or the Kafka forwarder', () => {
  it('loads neither ioredis nor kafkajs', async () => {
    const modules = await modulesLoaded({ REDIS_URL: '', KAFKA_FORWARDER: 'false' });
    expect(from(modules, 'ioredis')).toEqual([]);
    expect(from(modules, 'kafkajs')).toEqual([]);
  });
});

describe('a server with METRICS_PORT', () => {
  it('loads prom-client, and still not the OpenTelemetry SDK', async () => {
    const modules = await modulesLoaded({ METRICS_PORT: '0', OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    expect(from(modules, 'prom-client')).not.toEqual([]);
    expect(from(modules, '@opentelemetry/sdk-node')).toEqual([]);
  });
});

describe('the developer pages', () => {
  it('load nothing of GraphiQL or Swagger UI until a page is asked for', async () => {
    const modules = await modulesLoaded({ DEV_PAGES: 'true' });
    expect(from(modules, '@graphql-yoga/render-graphiql')).toEqual([]);
    expect(from(modules, 'swagger-ui-dist')).toEqual([]);
  });
});
