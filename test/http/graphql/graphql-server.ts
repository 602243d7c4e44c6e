import type { Guard } from '../../../src/http/guard.ts';
import type { Service } from '../../../src/service.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

export type GraphQLResponse = {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
  };
};

export type GraphQLServer = {
  readonly testApp: TestApp;
  /** http://127.0.0.1:PORT, no trailing slash. */
  readonly origin: string;
  readonly endpoint: string;
  post(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse>;
  close(): Promise<void>;
};

/** The real service on a fresh store, listening on a loopback port, with a GraphQL client. */
export async function startGraphQLServer(
  options: { env?: Record<string, string>; guard?: (service: Service) => Guard } = {},
): Promise<GraphQLServer> {
  const testApp = await startTestApp(options);
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = testApp.app.server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  const endpoint = `${origin}/graphql`;
  return {
    testApp,
    origin,
    endpoint,
    async post(query, variables, headers = {}) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
      });
      return {
        status: response.status,
        contentType: response.headers.get('content-type'),
        body: (await response.json()) as GraphQLResponse['body'],
      };
    },
    close: () => testApp.close(),
  };
}

/** A unique-enough pet name, so that tests never depend on each other's data. */
export function randomName(prefix = 'Pet'): string {
  return `${prefix} ${Math.random().toString(36).slice(2, 10)}`;
}

/** A random category id from 1 to 2^31, well inside every id type. */
export function randomCategoryId(): number {
  return 1 + Math.floor(Math.random() * 2 ** 31);
}

/**
 * Subscribes over server-sent events and collects `next` payloads until `count` arrived; calls
 * `whenOpen` once the subscription is live (its first bytes arrived).
 */
export async function subscribeOverSse(
  endpoint: string,
  query: string,
  count: number,
  whenOpen: () => Promise<void>,
  headers: Record<string, string> = {},
): Promise<unknown[]> {
  const abort = new AbortController();
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query }),
    signal: abort.signal,
  });
  if (response.status !== 200 || response.headers.get('content-type') !== 'text/event-stream') {
    throw new Error(`not a stream: ${response.status} ${await response.text()}`);
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: unknown[] = [];
  let buffer = '';
  // Awaited before returning: the events can all arrive before what `whenOpen` does has answered.
  let opened: Promise<void> | undefined;
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    opened ??= whenOpen();
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (block.startsWith('event: next') && data !== undefined) events.push(JSON.parse(data.slice(6)));
    }
  }
  abort.abort();
  await opened;
  return events;
}
