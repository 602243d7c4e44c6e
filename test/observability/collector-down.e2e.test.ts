import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TRACING_FLUSH_TIMEOUT_MS } from '../../src/observability/index.ts';
import { freePort } from '../support/free-port.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Tracing is optional: with OTEL_EXPORTER_OTLP_ENDPOINT naming a collector that is down, a real
 * server process still stops cleanly on SIGTERM, dropping the spans it could not export.
 */

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;

beforeAll(async () => {
  temp = makeTempDir('petstore-collector-down-');
  server = await startServerProcess({
    PETSTORE_DATA_DIR: temp.dir,
    LOG_FORMAT: 'json',
    // Nothing listens there.
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
  });
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  temp?.remove();
});

it('stops on SIGTERM with status 0 within the flush bound, warning that the last spans were dropped', async () => {
  // A span waits in the batch processor (it exports every 5 s) when the signal arrives.
  await (await fetch(`${server.url}/v1/pets`)).arrayBuffer();
  const started = Date.now();
  const closed = once(server.child, 'close');
  server.child.kill('SIGTERM');
  const [code] = (await closed) as [number | null];
  const elapsedMs = Date.now() - started;
  const lines = server.output
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; timeoutMs?: number });
  expect(code).toBe(0);
  const ours = lines.filter((line) => !line.msg.startsWith('opentelemetry: '));
  expect(
    ours.filter((line) => line.level >= 40).map(({ level, msg, timeoutMs }) => ({ level, msg, timeoutMs })),
  ).toEqual([
    {
      level: 40,
      msg: 'tracing: the last spans were dropped: the exporter did not finish in time',
      timeoutMs: TRACING_FLUSH_TIMEOUT_MS,
    },
  ]);
  expect(lines.map((line) => line.msg)).toContain('pet store stopped');
  expect(elapsedMs).toBeLessThan(TRACING_FLUSH_TIMEOUT_MS + 3000);
});

it('logs what OpenTelemetry could not use: a bad OTEL_EXPORTER_OTLP_PROTOCOL, replaced by its default', async () => {
  const dir = makeTempDir('petstore-otel-protocol-');
  const bad = await startServerProcess({
    PETSTORE_DATA_DIR: dir.dir,
    LOG_FORMAT: 'json',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'bogus',
  });
  try {
    const warnings = bad.output
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 40 && line.msg.startsWith('opentelemetry: '));
    expect(warnings.map((line) => line.msg)).toEqual([expect.stringMatching(/^opentelemetry: .*bogus/)]);
  } finally {
    await bad.kill('SIGKILL');
    dir.remove();
  }
});
