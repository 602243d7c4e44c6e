import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeApiKeyScopes, type KeyChange, revokeApiKey } from '../../src/application/commands/api-keys.ts';
import { systemClock } from '../../src/shared/context.ts';
import { subscribeOverSse } from './graphql/graphql-server.ts';
import { type ListeningApp, startListeningApp } from '../support/listening-app.ts';
import { readSse, type SseEvent } from '../support/sse.ts';

/**
 * A stream outlives the guard that let its request in: the audit feed's server-sent events and
 * GraphQL subscriptions end once their key may no longer do what they do, within about a second.
 */

let server: ListeningApp;
let writer: { authorization: string; keyId: string };
beforeAll(async () => {
  server = await startListeningApp();
  writer = await server.issueKey(['pets:read', 'pets:write'], 'writer');
});
afterAll(() => server.close());

const deps = () => ({ store: server.testApp.store, clock: systemClock });
const context = () => ({ correlationId: randomUUID() });

async function applied(change: Promise<KeyChange>): Promise<void> {
  await server.testApp.service.auth.keys.waitFor((await change).position!);
}

const revoke = (keyId: string) => applied(revokeApiKey(deps(), keyId, context()));
const setScopes = (keyId: string, scopes: string[]) =>
  applied(changeApiKeyScopes(deps(), keyId, scopes, context()));

async function createPet(): Promise<void> {
  const response = await fetch(`${server.origin}/v1/pets`, {
    method: 'POST',
    headers: { authorization: writer.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Pet ${randomUUID().slice(0, 8)}`, categoryId: 1 }),
  });
  expect(response.status).toBe(201);
}

const types = (events: readonly SseEvent[]) => events.map((event) => (event.data as { type: string }).type);

const feed = () => `${server.origin}/v1/audit/events`;

describe('the audit feed as server-sent events', () => {
  it('ends the stream once its key is revoked, and the reconnection gets 401 invalid_api_key', async () => {
    const auditor = await server.issueKey(['audit:read'], 'auditor');
    const head = await server.testApp.store.headPosition();
    const url = `${feed()}?after=${head}`;
    const events = await readSse(url, { authorization: auditor.authorization }, 10, () =>
      revoke(auditor.keyId),
    );
    // The stream ended (fewer than 10 events). The revocation itself reaches it only if the feed
    // read it before the key registry did: nothing after it can.
    expect(types(events).filter((type) => type !== 'ApiKeyRevoked')).toEqual([]);
    const again = await fetch(url, {
      headers: { authorization: auditor.authorization, accept: 'text/event-stream' },
    });
    expect({ status: again.status, body: await again.json() }).toEqual({
      status: 401,
      body: {
        code: 'invalid_api_key',
        message: 'The API key is malformed, unknown or revoked.',
        status: 401,
      },
    });
  });

  it('ends the stream once its key loses audit:read', async () => {
    const auditor = await server.issueKey(['audit:read', 'pets:read'], 'auditor');
    await createPet(); // the first pet reserves a block of ids: one event more
    const head = await server.testApp.store.headPosition();
    const events = await readSse(
      `${feed()}?after=${head}`,
      { authorization: auditor.authorization },
      10,
      () => setScopes(auditor.keyId, ['pets:read']),
    );
    expect(types(events).filter((type) => type !== 'ApiKeyScopesChanged')).toEqual([]);
  });

  it('hands on no event after the key loses audit:read, though it is granted again within the second', async () => {
    const auditor = await server.issueKey(['audit:read', 'pets:read'], 'auditor');
    await createPet(); // the first pet reserves a block of ids: one event more
    const head = await server.testApp.store.headPosition();
    let changes: Promise<void> | undefined;
    const events = await readSse(
      `${feed()}?after=${head}`,
      { authorization: auditor.authorization },
      10,
      () => {
        changes = (async () => {
          await setScopes(auditor.keyId, ['pets:read']);
          await createPet();
          await setScopes(auditor.keyId, ['audit:read', 'pets:read']);
          await createPet();
        })();
        return changes;
      },
    );
    await changes; // the stream ends before they do
    expect(types(events).filter((type) => type !== 'ApiKeyScopesChanged')).toEqual([]);
  });

  it('keeps delivering past the recheck when the key loses a scope the feed does not need', async () => {
    const auditor = await server.issueKey(['audit:read', 'pets:read'], 'auditor');
    await createPet(); // the first pet reserves a block of ids: one event more
    const head = await server.testApp.store.headPosition();
    const events = await readSse(
      `${feed()}?after=${head}`,
      { authorization: auditor.authorization },
      2,
      async () => {
        await setScopes(auditor.keyId, ['audit:read']);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await createPet();
      },
    );
    expect(types(events)).toEqual(['ApiKeyScopesChanged', 'PetCreated']);
  });
});

describe('GraphQL subscriptions', () => {
  /** Subscribes with a new key that has `scopes`, changes the key once the stream is open, and collects every event until it ends. */
  async function eventsUntilEnd(
    query: string,
    scopes: string[],
    change: (keyId: string) => Promise<void>,
  ): Promise<unknown[]> {
    const key = await server.issueKey(scopes, 'subscriber');
    return subscribeOverSse(`${server.origin}/graphql`, query, 2, () => change(key.keyId), {
      authorization: key.authorization,
    });
  }

  /** The one event a subscription ends with: the error a new request with its key would get. */
  const endedWith = (code: string, message: string) => [
    { errors: [{ message, locations: [{ line: 1, column: 1 }], extensions: { code } }] },
  ];

  it('end petChanged with invalid_api_key once the key is revoked', async () => {
    const events = await eventsUntilEnd('subscription { petChanged { __typename } }', ['pets:read'], revoke);
    expect(events).toEqual(endedWith('invalid_api_key', 'The API key is malformed, unknown or revoked.'));
  });

  // Of one type only, so that the key's change, itself an event of the feed, does not come first.
  const AUDIT_EVENTS = 'subscription { auditEvent(type: "PetCreated") { position } }';

  it('end auditEvent with invalid_api_key once the key is revoked', async () => {
    const events = await eventsUntilEnd(AUDIT_EVENTS, ['audit:read'], revoke);
    expect(events).toEqual(endedWith('invalid_api_key', 'The API key is malformed, unknown or revoked.'));
  });

  it('end auditEvent with insufficient_scope once the key loses audit:read', async () => {
    const events = await eventsUntilEnd(AUDIT_EVENTS, ['audit:read', 'pets:read'], (id) =>
      setScopes(id, ['pets:read']),
    );
    expect(events).toEqual(
      endedWith('insufficient_scope', 'This API key lacks the scope audit:read, which this operation needs.'),
    );
  });

  const WITH_HISTORY = 'subscription { petCreated { history { edges { node { type } } } } }';

  it('end petCreated with insufficient_scope once the key loses audit:read, which its history relied on', async () => {
    const events = await eventsUntilEnd(WITH_HISTORY, ['pets:read', 'audit:read'], async (id) => {
      await createPet();
      await new Promise((resolve) => setTimeout(resolve, 300)); // its event is answered meanwhile
      await setScopes(id, ['pets:read']);
      await createPet();
    });
    expect(events).toEqual([
      {
        data: { petCreated: { history: { edges: [{ node: { type: 'PetCreated' } }] } } },
        extensions: { storePosition: expect.any(String) },
      },
      ...endedWith(
        'insufficient_scope',
        'This API key lacks the scope audit:read, which this operation needs.',
      ),
    ]);
  });

  it('answer a nested field by the key’s scopes when the event comes, not when the subscription began', async () => {
    const events = await eventsUntilEnd(WITH_HISTORY, ['pets:read', 'audit:read'], async (id) => {
      await setScopes(id, ['pets:read']);
      await createPet();
      await createPet();
    });
    const refused = {
      data: { petCreated: { history: null } },
      errors: [
        {
          message: 'This API key lacks the scope audit:read, which this operation needs.',
          locations: [{ line: 1, column: 29 }],
          path: ['petCreated', 'history'],
          extensions: { code: 'insufficient_scope' },
        },
      ],
      extensions: { storePosition: expect.any(String) },
    };
    expect(events).toEqual([refused, refused]);
  });

  it.each([
    ['petCreated', 'pets:read', ['pets:read', 'orders:read'], ['orders:read']],
    // An admin's orderChanged carries every order, not only the key's own.
    ['orderChanged', 'admin', ['orders:read', 'admin'], ['orders:read']],
  ])('end %s with insufficient_scope once the key loses %s', async (field, lost, scopes, kept) => {
    const events = await eventsUntilEnd(`subscription { ${field} { id } }`, scopes, (id) =>
      setScopes(id, kept),
    );
    expect(events).toEqual(
      endedWith('insufficient_scope', `This API key lacks the scope ${lost}, which this operation needs.`),
    );
  });
});
