import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/application/ports/event-store.ts';
import { loadConfig } from '../../src/config.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { toKafkaMessage } from '../../src/forwarding/message.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createApiKey } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * One request followed through the whole service with an in-memory span exporter: the caller's
 * trace continues into HTTP → guard → command → append → projection, and into the stored event's
 * metadata and the Kafka message made from it.
 */

const exporter = new InMemorySpanExporter();
const traceId = randomBytes(16).toString('hex');
const callerSpanId = randomBytes(8).toString('hex');
let temp: ReturnType<typeof makeTempDir>;
let server: RunningServer;
let spans: ReadableSpan[];
let requestId: string;
let event: RecordedEvent;
let key: string;

beforeAll(async () => {
  temp = makeTempDir('petstore-tracing-');
  key = createApiKey({ PETSTORE_DATA_DIR: temp.dir });
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    PETSTORE_DATA_DIR: temp.dir,
  });
  server = await startServer(config, pino({ level: 'silent' }), {
    observability: { spanProcessors: [new SimpleSpanProcessor({ exporter })] },
  });
  const response = await fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      traceparent: `00-${traceId}-${callerSpanId}-01`,
    },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  });
  expect(response.status).toBe(201);
  requestId = response.headers.get('x-request-id')!;
  const { id } = (await response.json()) as { id: number };
  // The server span ends once the response is out, a moment after the client has it.
  const deadline = Date.now() + 5_000;
  while (!exporter.getFinishedSpans().some((span) => span.kind === SpanKind.SERVER) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  spans = exporter.getFinishedSpans();
  const reader = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  event = (await reader.readStream(`pet-${id}`))[0]!;
  await reader.close();
});
afterAll(async () => {
  await server?.close();
  temp?.remove();
});

const named = (name: string) => spans.filter((span) => span.name === name);
const only = (name: string) => {
  const found = named(name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0]!;
};
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe('a traced request', () => {
  it('continues the caller’s W3C trace in a server span named for the route', () => {
    const http = only('POST /v1/pets');
    expect(http.kind).toBe(SpanKind.SERVER);
    expect(http.spanContext().traceId).toBe(traceId);
    expect(parentOf(http)).toBe(callerSpanId);
    expect(http.attributes).toMatchObject({
      'http.route': '/v1/pets',
      'http.response.status_code': 201,
      'petstore.request_id': requestId,
    });
  });

  it('has the guard and the command as children of the server span', () => {
    const http = only('POST /v1/pets');
    expect(parentOf(only('guard'))).toBe(idOf(http));
    expect(parentOf(only('createPet'))).toBe(idOf(http));
  });

  it('has the appends as children of the command, and the projection as a child of the PetCreated append', () => {
    const command = only('createPet');
    const appends = named('eventstore.append');
    expect(appends.map(parentOf)).toEqual(appends.map(() => idOf(command)));
    const petCreated = appends.find((span) =>
      (span.attributes['petstore.event_types'] as string[]).includes('PetCreated'),
    )!;
    // Each read model reports every event it applies; the pet list's PetCreated is the one to follow.
    const projected = named('projection pet-list').filter(
      (span) => span.attributes['petstore.event_type'] === 'PetCreated',
    );
    expect(projected.map(parentOf)).toEqual([idOf(petCreated)]);
  });

  it('keeps every span in the caller’s trace', () => {
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([traceId]));
  });

  it('stores the append span’s trace context and the request id in the event’s metadata', () => {
    const petCreated = named('eventstore.append').find((span) =>
      (span.attributes['petstore.event_types'] as string[]).includes('PetCreated'),
    )!;
    expect(event.metadata).toMatchObject({
      traceparent: `00-${traceId}-${idOf(petCreated)}-01`,
      correlationId: requestId,
      causationId: requestId,
    });
  });

  it('sends the same trace context and ids as Kafka message headers', () => {
    expect(toKafkaMessage(event).headers).toMatchObject({
      traceparent: event.metadata.traceparent,
      'correlation-id': requestId,
      'causation-id': requestId,
    });
  });
});

describe('a request the router refused (a malformed percent-encoding in its path)', () => {
  it('has a server span in the caller’s trace, with its status', async () => {
    const callerTrace = randomBytes(16).toString('hex');
    const response = await fetch(`${server.url}/v1/pets/%zz`, {
      headers: { traceparent: `00-${callerTrace}-${callerSpanId}-01` },
    });
    expect(response.status).toBe(401);
    const span = exporter
      .getFinishedSpans()
      .find((candidate) => candidate.spanContext().traceId === callerTrace);
    expect(span).toMatchObject({
      name: 'GET',
      kind: SpanKind.SERVER,
      attributes: {
        'http.response.status_code': 401,
        'petstore.request_id': response.headers.get('x-request-id'),
      },
    });
  });
});

describe('a request refused for its query (a malformed percent-encoding), after the guard', () => {
  it('has a server span in the caller’s trace, with its status', async () => {
    const callerTrace = randomBytes(16).toString('hex');
    const response = await fetch(`${server.url}/v1/pets?name=%FF`, {
      headers: { authorization: `Bearer ${key}`, traceparent: `00-${callerTrace}-${callerSpanId}-01` },
    });
    expect(response.status).toBe(400);
    const span = exporter
      .getFinishedSpans()
      .find(
        (candidate) => candidate.spanContext().traceId === callerTrace && candidate.kind === SpanKind.SERVER,
      );
    expect(span).toMatchObject({
      name: 'GET /v1/pets',
      kind: SpanKind.SERVER,
      attributes: {
        'http.response.status_code': 400,
        'petstore.request_id': response.headers.get('x-request-id'),
      },
    });
  });
});

describe('an event stream its client leaves (a GraphQL subscription)', () => {
  it('has a server span, with its status, marked as closed early', async () => {
    const callerTrace = randomBytes(16).toString('hex');
    const client = new AbortController();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        traceparent: `00-${callerTrace}-${callerSpanId}-01`,
      },
      body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
      signal: client.signal,
    });
    expect(response.status).toBe(200);
    client.abort();
    const serverSpan = () =>
      exporter
        .getFinishedSpans()
        .find(
          (candidate) =>
            candidate.spanContext().traceId === callerTrace && candidate.kind === SpanKind.SERVER,
        );
    const deadline = Date.now() + 5_000;
    while (serverSpan() === undefined && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(serverSpan()).toMatchObject({
      name: 'POST /graphql',
      attributes: {
        'http.response.status_code': 200,
        'petstore.closed_early': true,
        'petstore.request_id': response.headers.get('x-request-id'),
      },
    });
  });
});
