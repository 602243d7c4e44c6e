import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petListProjection } from '../../../projections/pet-list.ts';
import { dataDirSnapshots } from '../../../src/read-models/snapshot-file.ts';
import { controlledClock, type GuardedApp, startGuardedApp } from '../../support/guarded-app.ts';

/** REST's admin endpoints in GraphQL: projections, rebuildProjection and verifyProjection. */

let app: GuardedApp;
let admin: string;
let auditor: string;

beforeAll(async () => {
  app = await startGuardedApp({ clock: controlledClock(Date.parse('2026-11-23T10:00:00Z')) });
  const limits = { plan: 'enterprise', perMinute: 10_000, perDay: 100_000 } as const;
  admin = (await app.issueKey({ ...limits, scopes: ['admin'] })).secret;
  auditor = (await app.issueKey({ ...limits, scopes: ['audit:read'] })).secret;
  await app.application.createPet({ name: 'Rex', categoryId: 1 }, { correlationId: 'seed' });
});
afterAll(() => app.close());

const REBUILD_FIELDS = 'state events position target eventsPerSecond etaSeconds startedAt finishedAt error';
const STATUS_FIELDS = `name version checkpoint lag { events capped seconds }
  snapshot { version checkpoint savedAt ageSeconds } unreadableSnapshot interimFromVersion unknownEvents { type firstPosition } rebuild { ${REBUILD_FIELDS} }`;
const COMPARISON_FIELDS = 'result checkpoint path expected actual reason';

async function graphql(query: string, key = admin) {
  return (await app.send(key, 'POST', '/graphql', { query })).json() as {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
  };
}

async function rest(method: 'GET' | 'POST', url: string): Promise<unknown> {
  return (await app.send(admin, method, `/v1/admin/projections${url}`)).json();
}

/** REST's JSON as GraphQL answers it: a field REST leaves out is null, `not compared` is `not_compared`. */
function asGraphQL(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asGraphQL);
  if (value === null || typeof value !== 'object') return value === 'not compared' ? 'not_compared' : value;
  const entries = Object.entries(value).map(([key, field]) => [key, asGraphQL(field)]);
  const record = Object.fromEntries(entries) as Record<string, unknown>;
  if ('result' in record) {
    for (const key of ['checkpoint', 'path', 'expected', 'actual', 'reason']) record[key] ??= null;
  }
  if ('startedAt' in record) for (const key of ['finishedAt', 'error']) record[key] ??= null;
  return record;
}

describe('Query.projections', () => {
  it('answers each read model of this server, as GET /v1/admin/projections does', async () => {
    const body = await graphql(`{ projections { ${STATUS_FIELDS} } }`);
    expect(body).toEqual({ data: { projections: asGraphQL(await rest('GET', '')) } });
    expect((body.data!.projections as { name: string }[]).map((status) => status.name)).toEqual([
      'pet-list',
      'api-keys',
      'orders',
    ]);
  });

  it('shows a snapshot file whose header is damaged as no snapshot, and unreadableSnapshot says why, as GET /v1/admin/projections does', async () => {
    const snapshots = dataDirSnapshots(app.config.dataDir);
    const checkpoint = String(await app.store.headPosition());
    const meta = { projection: 'pet-list', version: petListProjection.version, checkpoint };
    await snapshots.save({ ...meta, checkpointEventId: randomUUID() }, []);
    const file = path.join(app.config.dataDir, 'snapshots', 'pet-list.snapshot');
    const bytes = readFileSync(file);
    bytes[5] = 0;
    writeFileSync(file, bytes);
    try {
      const body = await graphql(`{ projections { ${STATUS_FIELDS} } }`);
      const petList = (body.data!.projections as { snapshot: unknown; unreadableSnapshot: unknown }[])[0]!;
      expect([petList.snapshot, petList.unreadableSnapshot, petList]).toEqual([
        null,
        'no snapshot header: not a snapshot file',
        asGraphQL(((await rest('GET', '')) as unknown[])[0]),
      ]);
    } finally {
      rmSync(file);
    }
  });

  it('is null with insufficient_scope for a key without admin', async () => {
    expect(await graphql('{ projections { name } }', auditor)).toEqual({
      data: { projections: null },
      errors: [
        {
          message: 'This API key lacks the scope admin, which this operation needs.',
          path: ['projections'],
          extensions: { code: 'insufficient_scope' },
        },
      ],
    });
  });
});

describe('Mutation.rebuildProjection', () => {
  it('starts a rebuild and answers its status; projections then shows it done, as REST does', async () => {
    const body = await graphql(
      `mutation { rebuildProjection(name: "orders") { __typename ... on RebuildStatus { ${REBUILD_FIELDS} } } }`,
    );
    const started = body.data!.rebuildProjection as Record<string, unknown>;
    expect(started).toMatchObject({ __typename: 'RebuildStatus', state: 'running', error: null });
    type Status = { name: string; rebuild: { state: string; startedAt: string } | null };
    const orders = (statuses: unknown) => (statuses as Status[]).find((status) => status.name === 'orders')!;
    const viaGraphQL = async () =>
      orders((await graphql(`{ projections { ${STATUS_FIELDS} } }`)).data!.projections);
    await expect.poll(async () => (await viaGraphQL()).rebuild?.state).toBe('done');
    const [status, viaRest] = [await viaGraphQL(), orders(await rest('GET', ''))];
    expect([status.rebuild?.startedAt, status]).toEqual([started.startedAt, asGraphQL(viaRest)]);
  });

  it('answers a NotFoundError for a projection that does not exist, REST’s 404', async () => {
    const body = await graphql(
      'mutation { rebuildProjection(name: "orders-by-moon") { __typename ... on Error { code message } } }',
    );
    expect(body).toEqual({
      data: {
        rebuildProjection: {
          __typename: 'NotFoundError',
          code: 'not_found',
          message: 'There is no projection named "orders-by-moon".',
        },
      },
    });
  });

  it('repeats at most 100 characters of a name no projection has', async () => {
    const body = await graphql(
      `mutation { verifyProjection(name: "${'x'.repeat(2000)}") { ... on Error { message } } }`,
    );
    expect(body).toEqual({
      data: { verifyProjection: { message: `There is no projection named "${'x'.repeat(100)}…".` } },
    });
  });

  it('is null with insufficient_scope for a key without admin, and starts nothing', async () => {
    const body = await graphql('mutation { rebuildProjection(name: "api-keys") { __typename } }', auditor);
    const status = (await rest('GET', '')) as { name: string; rebuild: unknown }[];
    expect([body, status.find((projection) => projection.name === 'api-keys')!.rebuild]).toEqual([
      {
        data: { rebuildProjection: null },
        errors: [
          {
            message: 'This API key lacks the scope admin, which this operation needs.',
            path: ['rebuildProjection'],
            extensions: { code: 'insufficient_scope' },
          },
        ],
      },
      null,
    ]);
  });
});

describe('Mutation.verifyProjection', () => {
  it('answers the comparisons, as POST /v1/admin/projections/{name}/verify does', async () => {
    const body = await graphql(
      `mutation { verifyProjection(name: "api-keys") { __typename ... on VerifyReport {
        name version live { ${COMPARISON_FIELDS} } snapshot { ${COMPARISON_FIELDS} } } } }`,
    );
    expect(body).toEqual({
      data: {
        verifyProjection: {
          __typename: 'VerifyReport',
          ...(asGraphQL(await rest('POST', '/api-keys/verify')) as object),
        },
      },
    });
    expect(body.data!.verifyProjection).toMatchObject({ name: 'api-keys', live: { result: 'same' } });
  });

  it('answers a NotFoundError for a projection that does not exist, REST’s 404', async () => {
    const body = await graphql(
      'mutation { verifyProjection(name: "orders-by-moon") { __typename ... on Error { code message } } }',
    );
    expect(body).toEqual({
      data: {
        verifyProjection: {
          __typename: 'NotFoundError',
          code: 'not_found',
          message: 'There is no projection named "orders-by-moon".',
        },
      },
    });
  });

  it('is null with insufficient_scope for a key without admin', async () => {
    const body = await graphql('mutation { verifyProjection(name: "api-keys") { __typename } }', auditor);
    expect(body).toEqual({
      data: { verifyProjection: null },
      errors: [
        {
          message: 'This API key lacks the scope admin, which this operation needs.',
          path: ['verifyProjection'],
          extensions: { code: 'insufficient_scope' },
        },
      ],
    });
  });
});
