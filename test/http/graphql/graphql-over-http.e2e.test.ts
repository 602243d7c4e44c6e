import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLServer, startGraphQLServer } from './graphql-server.ts';

let server: GraphQLServer;
beforeAll(async () => {
  server = await startGraphQLServer();
});
afterAll(() => server.close());

describe('GraphQL over HTTP (graphql-http server audits against the listening server)', () => {
  it('passes every audit, MUST, SHOULD and MAY alike', async () => {
    const audits = serverAudits({
      url: server.endpoint,
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) =>
        fetch(input, {
          ...init,
          headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: 'Bearer test' },
        }),
    });
    const failed: string[] = [];
    for (const audit of audits) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(`${audit.name}: ${result.reason}`);
    }
    expect(failed).toEqual([]);
  });
});
