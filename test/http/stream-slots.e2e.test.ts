import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeOverSse } from './graphql/graphql-server.ts';
import { type ListeningApp, startListeningApp } from '../support/listening-app.ts';

/**
 * A key holds at most STREAMS_PER_KEY event streams open on one server at once (2 here): the audit
 * feed's server-sent events and GraphQL subscriptions alike. A stream costs one request of the
 * rate limit when it opens and nothing while it stays open, so without the cap one key could hold
 * thousands.
 */

let server: ListeningApp;
beforeAll(async () => {
  server = await startListeningApp({ env: { STREAMS_PER_KEY: '2' } });
});
afterAll(() => server.close());

const auditor = () => server.issueKey(['audit:read', 'pets:read'], 'auditor');

type OpenStream = { readonly status: number; close(): void };

/** Opens the audit feed as server-sent events and keeps it open until `close`. */
async function openFeed(authorization: string): Promise<OpenStream & { body: unknown }> {
  const abort = new AbortController();
  const response = await fetch(`${server.origin}/v1/audit/events`, {
    headers: { authorization, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const body = response.status === 200 ? undefined : await response.json();
  return { status: response.status, body, close: () => abort.abort() };
}

const refusal = {
  code: 'too_many_streams',
  message:
    'This API key already holds 2 open event streams on this server, the most it may: close one before opening another.',
  status: 429,
};

describe('the open event streams of one key', () => {
  it('are refused past STREAMS_PER_KEY with 429 too_many_streams', async () => {
    const key = await auditor();
    const open = [await openFeed(key.authorization), await openFeed(key.authorization)];
    const third = await openFeed(key.authorization);
    expect(open.map((stream) => stream.status)).toEqual([200, 200]);
    expect({ status: third.status, body: third.body }).toEqual({ status: 429, body: refusal });
    for (const stream of open) stream.close();
  });

  it('count GraphQL subscriptions too, which are refused with extensions.code too_many_streams', async () => {
    const key = await auditor();
    const open = [await openFeed(key.authorization), await openFeed(key.authorization)];
    const payloads = await subscribeOverSse(
      `${server.origin}/graphql`,
      'subscription { petCreated { id } }',
      1,
      async () => {},
      { authorization: key.authorization },
    );
    expect(payloads).toEqual([
      {
        errors: [{ message: refusal.message, extensions: { code: 'too_many_streams' } }],
      },
    ]);
    for (const stream of open) stream.close();
  });

  it('are counted again once one closes: a new stream then opens', async () => {
    const key = await auditor();
    const first = await openFeed(key.authorization);
    const second = await openFeed(key.authorization);
    first.close();
    await expect
      .poll(async () => {
        const next = await openFeed(key.authorization);
        next.close();
        return next.status;
      })
      .toBe(200);
    second.close();
  });

  it("are the key's own: another key opens its streams while one holds all of its", async () => {
    const full = await auditor();
    const other = await auditor();
    const open = [await openFeed(full.authorization), await openFeed(full.authorization)];
    const others = [await openFeed(other.authorization), await openFeed(other.authorization)];
    expect(others.map((stream) => stream.status)).toEqual([200, 200]);
    for (const stream of [...open, ...others]) stream.close();
  });

  it('leave pages of the feed alone: a key that holds all of its streams still reads pages', async () => {
    const key = await auditor();
    const open = [await openFeed(key.authorization), await openFeed(key.authorization)];
    const page = await fetch(`${server.origin}/v1/audit/events?limit=1`, {
      headers: { authorization: key.authorization },
    });
    expect(page.status).toBe(200);
    for (const stream of open) stream.close();
  });
});
