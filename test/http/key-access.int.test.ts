import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/application/api-key-secrets.ts';
import { changeApiKeyScopes, rotateApiKey } from '../../src/application/commands/api-keys.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import {
  controlledClock,
  type ControlledClock,
  type GuardedApp,
  startGuardedApp,
} from '../support/guarded-app.ts';
import { SCOPES } from '../../src/domain/scopes.ts';
import { openApiDocument, openApiMismatches } from '../support/openapi.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** Scopes, expiry, rotation and the scopes of keys issued before scopes existed: REST and GraphQL alike. */

const START = Date.UTC(2030, 0, 15, 10, 0, 5);
let clock: ControlledClock;
let service: GuardedApp | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start(env: Record<string, string> = {}): Promise<GuardedApp> {
  clock = controlledClock(START);
  service = await startGuardedApp({ clock, env });
  return service;
}

const rest = (method: 'GET' | 'POST', url: string, secret: string, body?: unknown) =>
  service!.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const graphql = (secret: string, query: string) =>
  service!.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ query }),
  });

const CREATE = 'mutation { createPet(input: { name: "Rex", categoryId: 1 }) { ... on Pet { id } } }';

describe('scopes', () => {
  it('lets a key with pets:read list pets over REST', async () => {
    const { secret } = await (await start()).issueKey({ plan: 'free', scopes: ['pets:read'] });
    expect((await rest('GET', '/v1/pets', secret)).statusCode).toBe(200);
  });

  it('answers a REST write without pets:write with 403 insufficient_scope, the challenge, and the rate-limit headers', async () => {
    const { secret } = await (await start()).issueKey({ plan: 'free', scopes: ['pets:read'] });
    const response = await rest('POST', '/v1/pets', secret, { name: 'Rex', categoryId: 1 });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      code: 'insufficient_scope',
      message: 'This API key lacks the scope pets:write, which this operation needs.',
      status: 403,
    });
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="petstore", error="insufficient_scope", scope="pets:write"',
    );
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
    expect(openApiMismatches('POST', '/pets', response)).toEqual([]);
    expect((await rest('GET', '/v1/pets', secret)).json()).toEqual([]);
  });

  it('refuses a GraphQL mutation field without pets:write, with the same code and challenge, and runs nothing', async () => {
    const { secret } = await (await start()).issueKey({ plan: 'free', scopes: ['pets:read'] });
    const response = await graphql(secret, CREATE);
    expect(response.json()).toEqual({
      data: { createPet: null },
      errors: [
        {
          message: 'This API key lacks the scope pets:write, which this operation needs.',
          path: ['createPet'],
          extensions: { code: 'insufficient_scope' },
        },
      ],
    });
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="petstore", error="insufficient_scope", scope="pets:write"',
    );
    expect((await rest('GET', '/v1/pets', secret)).json()).toEqual([]);
  });

  it('judges GraphQL per field: a query field the key may read resolves beside one it may not', async () => {
    const { secret } = await (await start()).issueKey({ plan: 'free', scopes: ['orders:read'] });
    const response = await graphql(secret, '{ __typename pet(id: 1) { id } }');
    expect(response.json()).toMatchObject({
      data: { __typename: 'Query', pet: null },
      errors: [{ path: ['pet'], extensions: { code: 'insufficient_scope' } }],
    });
  });

  it('keeps the fields a key may read when it may not read a list beside them', async () => {
    const { secret } = await (await start()).issueKey({ plan: 'free', scopes: ['pets:read'] });
    const response = await graphql(secret, '{ orders { edges { node { id } } } inventory { available } }');
    expect(response.json()).toEqual({
      data: { orders: null, inventory: { available: 0 } },
      errors: [
        {
          message: 'This API key lacks the scope orders:read, which this operation needs.',
          path: ['orders'],
          extensions: { code: 'insufficient_scope' },
        },
      ],
    });
  });

  it('answers the mutations that ran when a later one in the same request is refused', async () => {
    const { secret } = await (await start()).issueKey({ plan: 'free', scopes: ['pets:read', 'pets:write'] });
    const response = await graphql(
      secret,
      'mutation { createPet(input: { name: "Rex", categoryId: 1 }) { ... on Pet { name } } ' +
        'placeOrder(input: { petId: 1 }) { __typename } }',
    );
    expect(response.json()).toEqual({
      data: { createPet: { name: 'Rex' }, placeOrder: null },
      errors: [
        {
          message: 'This API key lacks the scope orders:write, which this operation needs.',
          path: ['placeOrder'],
          extensions: { code: 'insufficient_scope' },
        },
      ],
      extensions: { storePosition: expect.any(String) },
    });
  });

  it('lets an admin key do everything', async () => {
    const { secret } = await (await start()).issueKey({ plan: 'free', scopes: ['admin'] });
    expect((await rest('POST', '/v1/pets', secret, { name: 'Rex', categoryId: 1 })).statusCode).toBe(201);
    expect((await graphql(secret, CREATE)).json().data.createPet.id).toEqual(expect.any(Number));
  });

  it('opens each REST operation to exactly the scopes its OpenAPI security names, admin included', async () => {
    const app = await start();
    const { pet } = await app.application.createPet(
      { name: 'Rex', categoryId: 1 },
      { correlationId: 'seed' },
    );
    const secrets = new Map<string, string>();
    for (const scope of SCOPES) {
      secrets.set(scope, (await app.issueKey({ plan: 'business', scopes: [scope] })).secret);
    }
    const operations = Object.entries(
      openApiDocument.paths as unknown as Record<
        string,
        Record<string, { security?: Record<string, string[]>[] }>
      >,
    ).flatMap(([template, methods]) =>
      Object.entries(methods)
        .filter(([method]) => ['get', 'post', 'patch', 'delete'].includes(method))
        .filter(([, operation]) => (operation.security ?? openApiDocument.security).length > 0)
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          template,
          security: operation.security!,
        })),
    );
    const opened: Record<string, string[]> = {};
    const documented: Record<string, string[]> = {};
    for (const { method, template, security } of operations) {
      const url = `/v1${template}`
        .replace('{petId}', String(pet.id))
        .replace('{orderId}', '1')
        .replace('{name}', 'orders');
      const name = `${method} ${template}`;
      documented[name] = security.flatMap((requirement) => requirement.bearerAuth ?? []);
      opened[name] = [];
      for (const scope of SCOPES) {
        const response = await app.app.inject({
          method: method as 'GET',
          url,
          // JSON: the change streams then answer 406 once past the guard, rather than stream forever.
          headers: { authorization: `Bearer ${secrets.get(scope)}`, accept: 'application/json' },
        });
        if (response.statusCode !== 403) opened[name].push(scope);
      }
    }
    expect(opened).toEqual(documented);
  });

  it('follows a change of scopes without a restart', async () => {
    const app = await start();
    const { secret, keyId } = await app.issueKey({ plan: 'free', scopes: ['pets:read'] });
    const change = await changeApiKeyScopes({ store: app.store, clock }, keyId, ['pets:read', 'pets:write'], {
      correlationId: randomUUID(),
    });
    await app.auth.keys.waitFor(change.position!);
    expect((await rest('POST', '/v1/pets', secret, { name: 'Rex', categoryId: 1 })).statusCode).toBe(201);
  });
});

describe('expiry', () => {
  it('serves a key until its expiry, then answers 401 api_key_expired saying so', async () => {
    const app = await start();
    const { secret } = await app.issueKey({ plan: 'free', expiresAt: new Date(START + 60_000) });
    expect((await rest('GET', '/v1/pets', secret)).statusCode).toBe(200);
    clock.advance(60_000);
    const response = await rest('GET', '/v1/pets', secret);
    expect(response.json()).toEqual({
      code: 'api_key_expired',
      message: 'The API key expired at 2030-01-15T10:01:05.000Z; ask for a new one.',
      status: 401,
    });
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="petstore", error="invalid_token", error_description="The API key expired at 2030-01-15T10:01:05.000Z"',
    );
    expect(openApiMismatches('GET', '/pets', response)).toEqual([]);
  });
  it('answers a GraphQL request it let in though the key expires while it runs: no field is refused for a scope the key has', async () => {
    const app = await start();
    const { secret } = await app.issueKey({
      plan: 'free',
      scopes: ['pets:read', 'pets:write', 'orders:write'],
      expiresAt: new Date(START + 60_000),
    });
    // The key expires while the first mutation is decided (the first reading of the date).
    const now = clock.now;
    clock.now = () => {
      clock.now = now;
      const at = now();
      clock.advance(60_000);
      return at;
    };
    const response = await graphql(
      secret,
      'mutation { createPet(input: { name: "Rex", categoryId: 1, status: available }) { ... on Pet { name } } ' +
        'placeOrder(input: { petId: 1 }) { __typename } }',
    );
    expect(response.json()).toMatchObject({
      data: { createPet: { name: 'Rex' }, placeOrder: { __typename: 'Order' } },
    });
    expect(response.json().errors).toBeUndefined();
  });
});

describe('rotation', () => {
  it('serves the new secret at once and the old one until the grace ends, on the same counters', async () => {
    const app = await start();
    const { secret: old, keyId } = await app.issueKey({ plan: 'free' });
    await rest('GET', '/v1/pets', old);
    const rotated = await rotateApiKey({ store: app.store, clock }, keyId, 60_000, {
      correlationId: randomUUID(),
    });
    await app.auth.keys.waitFor(rotated.position!);
    const fresh = await rest('GET', '/v1/pets', rotated.secret);
    expect([fresh.statusCode, fresh.headers['x-ratelimit-remaining']]).toEqual([200, '58']);
    expect((await rest('GET', '/v1/pets', old)).statusCode).toBe(200);
    clock.advance(60_000);
    expect((await rest('GET', '/v1/pets', old)).json().code).toBe('invalid_api_key');
    expect((await rest('GET', '/v1/pets', rotated.secret)).statusCode).toBe(200);
  });
});

describe('keys issued before scopes existed', () => {
  it('get the default scopes through an ApiKeyScopesChanged event when the service starts', async () => {
    const temp = makeTempDir();
    const { keyId, secret } = generateApiKey();
    const store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
    await store.appendToStream(`apikey-${keyId}`, [
      {
        type: 'ApiKeyIssued',
        data: {
          keyId,
          name: 'old',
          plan: 'free',
          limits: { perMinute: 60, perDay: 1000 },
          secretHash: hashApiKey(secret),
          issuedAt: '2026-01-01T00:00:00.000Z',
        },
        metadata: {
          eventId: randomUUID(),
          occurredAt: '2026-01-01T00:00:00.000Z',
          correlationId: 'old',
          schemaVersion: 1,
        },
      },
    ]);
    await store.close();
    try {
      const app = await start({ PETSTORE_DATA_DIR: temp.dir });
      expect(app.auth.keys.get(keyId)?.scopes).toEqual([
        'pets:read',
        'pets:write',
        'orders:read',
        'orders:write',
      ]);
      const stream = await app.store.readStream(`apikey-${keyId}`);
      expect(stream.map((event) => event.type)).toEqual(['ApiKeyIssued', 'ApiKeyScopesChanged']);
      expect((await rest('POST', '/v1/pets', secret, { name: 'Rex', categoryId: 1 })).statusCode).toBe(201);
    } finally {
      temp.remove();
    }
  });
});

describe('a key created by another process', () => {
  it('is accepted on its first request, before this process’s subscription has caught up', async () => {
    const temp = makeTempDir();
    try {
      const app = await start({ PETSTORE_DATA_DIR: temp.dir });
      const cli = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
      const { keyId, secret } = generateApiKey();
      await cli.appendToStream(`apikey-${keyId}`, [
        {
          type: 'ApiKeyIssued',
          data: {
            keyId,
            name: 'from the CLI',
            plan: 'free',
            limits: { perMinute: 60, perDay: 1000 },
            secretHash: hashApiKey(secret),
            issuedAt: new Date(START).toISOString(),
            scopes: ['pets:read'],
          },
          metadata: {
            eventId: randomUUID(),
            occurredAt: new Date(START).toISOString(),
            correlationId: 'cli',
            schemaVersion: 1,
          },
        },
      ]);
      const known = app.auth.keys.get(keyId) !== undefined;
      const response = await rest('GET', '/v1/pets', secret);
      await cli.close();
      expect([known, response.statusCode]).toEqual([false, 200]);
    } finally {
      temp.remove();
    }
  });
});
