import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moved, type Scrape, scrape, series } from '../support/prometheus.ts';
import { createApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { atTheStartOfAMinute } from '../support/minute.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Prometheus metrics of a real server process (METRICS_PORT=0: a free port), scraped before and
 * after real traffic through the public API: each number moves by exactly what the traffic did.
 */

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;
let metricsUrl: string;
let enterprise: string;
let free: string;
let before: Scrape;
let after: Scrape;

const get = (path: string, key: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
const post = (path: string, key: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  temp = makeTempDir('petstore-metrics-');
  const env = { PETSTORE_DATA_DIR: temp.dir };
  enterprise = createApiKey(env);
  free = createApiKey(env, ['--plan', 'free']);
  server = await startServerProcess({ ...env, METRICS_PORT: '0', RATE_LIMIT_BAN_SECONDS: '60' });
  metricsUrl = /"metricsUrl":"([^"]+)"/.exec(server.output.join('\n'))![1]!;
  before = await scrape(metricsUrl);

  for (const name of ['Rex', 'Tom']) await post('/v1/pets', enterprise, { name, categoryId: 1 });
  const id = ((await (await get('/v1/pets?limit=1', enterprise)).json()) as { id: number }[])[0]!.id;
  await (await get(`/v1/pets/${id}`, enterprise)).arrayBuffer();
  await (await get('/v1/pets/987654321', enterprise)).arrayBuffer();
  await (await get('/v1/pets/%zz', enterprise)).arrayBuffer();
  await post('/graphql', enterprise, {
    query: 'query ListPets { pets(first: 2) { edges { node { id } } } }',
  });
  await post('/graphql', enterprise, {
    query: `query ${LONG_NAME} { pets(first: 1) { edges { node { id } } } }`,
  });
  await post('/graphql', enterprise, {
    query: 'mutation { createPet(input: {name: "Kit", categoryId: 2}) { __typename } }',
  });
  await atTheStartOfAMinute();
  for (let i = 0; i < 73; i++) await (await get('/v1/pets?limit=1', free)).arrayBuffer();
  after = await scrape(metricsUrl);
});
afterAll(async () => {
  await server?.kill();
  temp?.remove();
});

/** 101 characters, one past what an operation_name label may hold. */
const LONG_NAME = `L${'o'.repeat(99)}g`;

const delta = (name: string, labels: Record<string, string> = {}) =>
  moved(before, after, series(name, labels));

describe('metrics after real traffic', () => {
  it('time HTTP requests by route pattern, method and status', () => {
    const count = (route: string, method: string, status: string) =>
      delta('http_request_duration_seconds_count', { route, method, status });
    expect(count('/v1/pets', 'POST', '201')).toBe(2);
    expect(count('/v1/pets/:petId', 'GET', '200')).toBe(1);
    expect(count('/v1/pets/:petId', 'GET', '404')).toBe(1);
    expect(count('/v1/pets', 'GET', '200')).toBe(61);
    expect(count('/v1/pets', 'GET', '429')).toBe(13);
    expect(count('/graphql', 'POST', '200')).toBe(3);
  });

  it('time a request the router refused, a malformed percent-encoding in its path, as (unmatched)', () => {
    expect(
      delta('http_request_duration_seconds_count', { route: '(unmatched)', method: 'GET', status: '400' }),
    ).toBe(1);
  });

  it('never label a series with a raw URL', () => {
    const routes = [...after.keys()].flatMap((key) => /route="([^"]*)"/.exec(key)?.[1] ?? []);
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter((route) => /\/\d+(\/|$)|\?/.test(route))).toEqual([]);
  });

  it('count GraphQL operations by name and type', () => {
    expect(delta('graphql_operations_total', { operation_name: 'ListPets', operation_type: 'query' })).toBe(
      1,
    );
    expect(delta('graphql_operations_total', { operation_name: '', operation_type: 'mutation' })).toBe(1);
  });

  it('count an operation whose name is longer than 100 characters as (other)', () => {
    expect(delta('graphql_operations_total', { operation_name: '(other)', operation_type: 'query' })).toBe(1);
    expect([...after.keys()].filter((series) => series.includes(LONG_NAME))).toEqual([]);
  });

  it('count rate-limit decisions by plan: the free key allowed 60 a minute, then limited, then banned', () => {
    const decisions = (decision: string, plan: string) =>
      delta('petstore_rate_limit_decisions_total', { decision, plan });
    expect(decisions('allowed', 'enterprise')).toBe(9);
    expect(decisions('allowed', 'free')).toBe(60);
    expect(decisions('limited', 'free')).toBe(10);
    expect(decisions('banned', 'free')).toBe(3);
  });

  it('time every append to the store and count its events', () => {
    // The id block, three pets (two REST, one GraphQL) and the ban: one event per append.
    expect(delta('petstore_eventstore_append_duration_seconds_count', { result: 'ok' })).toBe(5);
    expect(delta('petstore_eventstore_append_events_sum')).toBe(5);
    expect(delta('petstore_eventstore_append_events_count')).toBe(5);
  });

  it('give each read model its position, moved by the new events, and no lag', () => {
    for (const projection of ['pet-list', 'api-keys']) {
      expect(delta('petstore_projection_position', { projection })).toBeGreaterThanOrEqual(5);
      expect(after.get(series('petstore_projection_lag_seconds', { projection }))).toBe(0);
    }
  });

  it("include Node's default metrics", () => {
    expect(after.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(after.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('count the event streams open on this process: one while a subscription is open, none once it closes', async () => {
    const open = async () => (await scrape(metricsUrl)).get('petstore_open_streams');
    expect(await open()).toBe(0);
    const abort = new AbortController();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${enterprise}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ query: 'subscription { petCreated { id } }' }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    await expect.poll(open).toBe(1);
    abort.abort();
    await expect.poll(open).toBe(0);
  });

  it('are served on their own listener only: the API port has no /metrics', async () => {
    expect((await get('/metrics', enterprise)).status).toBe(404);
  });
});
