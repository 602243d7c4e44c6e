import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, a real server process exports its spans over OTLP/HTTP to that
 * endpoint (here a local collector stand-in that records what it receives).
 */

const received: { path: string; type: string; bytes: number; body: Buffer }[] = [];
const collector = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    received.push({
      path: request.url ?? '',
      type: request.headers['content-type'] ?? '',
      bytes: body.length,
      body,
    });
    response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;

beforeAll(async () => {
  collector.listen(0, '127.0.0.1');
  await once(collector, 'listening');
  const { port } = collector.address() as AddressInfo;
  temp = makeTempDir('petstore-otlp-');
  const env = { PETSTORE_DATA_DIR: temp.dir };
  const key = createApiKey(env);
  server = await startServerProcess({
    ...env,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_BSP_SCHEDULE_DELAY: '50',
  });
  await fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  });
  const deadline = Date.now() + 10_000;
  while (!received.some((entry) => entry.body.includes('POST /v1/pets')) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
});
afterAll(async () => {
  await server?.kill();
  collector.close();
  temp?.remove();
});

it('sends the request’s spans to the endpoint’s /v1/traces as OTLP protobuf', () => {
  const traces = received.filter((entry) => entry.path === '/v1/traces');
  expect(traces.length).toBeGreaterThan(0);
  expect(traces[0]!.type).toBe('application/x-protobuf');
  const spanNames = ['POST /v1/pets', 'guard', 'createPet', 'eventstore.append', 'projection pet-list'];
  const all = Buffer.concat(traces.map((entry) => entry.body));
  for (const name of spanNames) expect(all.includes(name), name).toBe(true);
  expect(all.includes('petstore')).toBe(true); // service.name
});
