import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petListProjection } from '../../../projections/pet-list.ts';
import { dataDirSnapshots } from '../../../src/read-models/snapshot-file.ts';
import { controlledClock, type GuardedApp, startGuardedApp } from '../../support/guarded-app.ts';
import { openApiMismatches } from '../../support/openapi.ts';

/** The admin endpoints over this server's read models, as the OpenAPI document describes them. */

let app: GuardedApp;
let admin: string;
let auditor: string;

beforeAll(async () => {
  app = await startGuardedApp({ clock: controlledClock(Date.parse('2026-11-23T10:00:00Z')) });
  admin = `Bearer ${(await app.issueKey({ plan: 'enterprise', perMinute: 10_000, perDay: 100_000, scopes: ['admin'] })).secret}`;
  auditor = `Bearer ${(await app.issueKey({ plan: 'free', scopes: ['audit:read'] })).secret}`;
  await app.application.createPet({ name: 'Rex', categoryId: 1 }, { correlationId: 'seed' });
});
afterAll(() => app.close());

const call = (method: 'GET' | 'POST', url: string, authorization = admin) =>
  app.app.inject({ method, url, headers: { authorization } });

describe('the admin endpoints', () => {
  it('GET /v1/admin/projections: each read model of this server', async () => {
    const response = await call('GET', '/v1/admin/projections');
    const head = String(await app.store.headPosition());
    expect(openApiMismatches('GET', '/admin/projections', response)).toEqual([]);
    expect(response.json()).toEqual([
      expect.objectContaining({
        name: 'pet-list',
        checkpoint: head,
        lag: { events: 0, capped: false, seconds: 0 },
      }),
      expect.objectContaining({
        name: 'api-keys',
        checkpoint: head,
        lag: { events: 0, capped: false, seconds: 0 },
      }),
      expect.objectContaining({
        name: 'orders',
        checkpoint: head,
        lag: { events: 0, capped: false, seconds: 0 },
      }),
    ]);
  });

  it('POST /v1/admin/projections/{name}/rebuild: 202 with the rebuild, then done', async () => {
    const response = await call('POST', '/v1/admin/projections/pet-list/rebuild');
    expect([
      response.statusCode,
      openApiMismatches('POST', '/admin/projections/{name}/rebuild', response),
    ]).toEqual([202, []]);
    await expect
      .poll(
        async () =>
          (await call('GET', '/v1/admin/projections')).json<{ rebuild: { state: string } | null }[]>()[0]!
            .rebuild?.state,
      )
      .toBe('done');
  });

  it('POST /v1/admin/projections/{name}/verify: the comparisons', async () => {
    const response = await call('POST', '/v1/admin/projections/api-keys/verify');
    expect(openApiMismatches('POST', '/admin/projections/{name}/verify', response)).toEqual([]);
    expect(response.json()).toMatchObject({ name: 'api-keys', live: { result: 'same' } });
  });

  it.each(['rebuild', 'verify'])(
    'POST …/%s with a field in its body: 400 naming it, as the document says, and nothing started',
    async (action) => {
      const before = (await call('GET', '/v1/admin/projections')).json<{ rebuild: unknown }[]>()[0]!.rebuild;
      const response = await app.app.inject({
        method: 'POST',
        url: `/v1/admin/projections/pet-list/${action}`,
        headers: { authorization: admin, 'content-type': 'application/json' },
        payload: { force: true },
      });
      expect([
        response.statusCode,
        response.json(),
        openApiMismatches('POST', `/admin/projections/{name}/${action}`, response),
      ]).toEqual([
        400,
        {
          code: 'validation_failed',
          message: `Field force cannot be set; a ${action === 'rebuild' ? 'rebuild' : 'verification'} takes no fields.`,
          status: 400,
        },
        [],
      ]);
      expect((await call('GET', '/v1/admin/projections')).json<{ rebuild: unknown }[]>()[0]!.rebuild).toEqual(
        before,
      );
    },
  );

  it('POST …/verify with a body that is not JSON: 415, as the document says', async () => {
    const response = await app.app.inject({
      method: 'POST',
      url: '/v1/admin/projections/pet-list/verify',
      headers: { authorization: admin, 'content-type': 'text/plain' },
      payload: 'now',
    });
    expect([
      response.statusCode,
      response.json<{ code: string }>().code,
      openApiMismatches('POST', '/admin/projections/{name}/verify', response),
    ]).toEqual([415, 'unsupported_media_type', []]);
  });

  it('404 for a projection that does not exist', async () => {
    const response = await call('POST', '/v1/admin/projections/orders-by-moon/verify');
    expect([response.statusCode, response.json()]).toEqual([
      404,
      { code: 'not_found', message: 'There is no projection named "orders-by-moon".', status: 404 },
    ]);
  });

  it('GET /v1/admin/projections refuses asOf with 400 naming it, rather than answer the read models as they are now', async () => {
    const response = await call('GET', '/v1/admin/projections?asOf=2026-11-23T09:00:00Z');
    expect([
      response.statusCode,
      response.json(),
      openApiMismatches('GET', '/admin/projections', response),
    ]).toEqual([
      400,
      {
        code: 'validation_failed',
        message:
          'Query parameter asOf cannot be set: a read model is shown only as it is now, on this server.',
        status: 400,
      },
      [],
    ]);
  });

  it('403 without the admin scope', async () => {
    const response = await call('GET', '/v1/admin/projections', auditor);
    expect([response.statusCode, response.json<{ code: string }>().code]).toEqual([
      403,
      'insufficient_scope',
    ]);
  });
});

describe('over a store a newer release wrote to', () => {
  it('GET /v1/admin/projections names the event type each read model passed over, with its first position', async () => {
    const newer = await startGuardedApp({ clock: controlledClock(Date.parse('2026-11-23T10:00:00Z')) });
    try {
      const key = `Bearer ${(await newer.issueKey({ plan: 'pro', scopes: ['admin'] })).secret}`;
      const metadata = {
        eventId: randomUUID(),
        occurredAt: '2026-11-27T00:00:00.000Z',
        correlationId: 'c',
        schemaVersion: 1,
      };
      const { position } = await newer.store.appendToStream('pet-1', [
        { type: 'PetVaccinated', data: { id: 1 }, metadata },
      ]);
      await newer.service.readModels.waitFor(position);
      const response = await newer.app.inject({
        method: 'GET',
        url: '/v1/admin/projections',
        headers: { authorization: key },
      });
      const unknownEvents = [{ type: 'PetVaccinated', firstPosition: String(position) }];
      expect([
        response.json<{ name: string; unknownEvents: unknown }[]>().map(({ name, unknownEvents }) => ({
          name,
          unknownEvents,
        })),
        openApiMismatches('GET', '/admin/projections', response),
      ]).toEqual([
        [
          { name: 'pet-list', unknownEvents },
          { name: 'api-keys', unknownEvents },
          { name: 'orders', unknownEvents },
        ],
        [],
      ]);
    } finally {
      await newer.close();
    }
  });
});

describe('beside a snapshot file whose header is damaged', () => {
  it('GET /v1/admin/projections shows the file as no snapshot, and unreadableSnapshot says why', async () => {
    const damaged = await startGuardedApp({ clock: controlledClock(Date.parse('2026-11-23T10:00:00Z')) });
    try {
      const key = `Bearer ${(await damaged.issueKey({ plan: 'pro', scopes: ['admin'] })).secret}`;
      const snapshots = dataDirSnapshots(damaged.config.dataDir);
      const checkpoint = String(await damaged.store.headPosition());
      await snapshots.save(
        {
          projection: 'pet-list',
          version: petListProjection.version,
          checkpoint,
          checkpointEventId: randomUUID(),
        },
        [],
      );
      const file = path.join(damaged.config.dataDir, 'snapshots', 'pet-list.snapshot');
      const bytes = readFileSync(file);
      bytes[5] = 0;
      writeFileSync(file, bytes);
      const response = await damaged.app.inject({
        method: 'GET',
        url: '/v1/admin/projections',
        headers: { authorization: key },
      });
      const petList = response.json<{ snapshot: unknown; unreadableSnapshot: unknown }[]>()[0]!;
      expect([
        petList.snapshot,
        petList.unreadableSnapshot,
        openApiMismatches('GET', '/admin/projections', response),
      ]).toEqual([null, 'no snapshot header: not a snapshot file', []]);
    } finally {
      await damaged.close();
    }
  });
});

it('GET /v1/audit/events answers as the OpenAPI document says', async () => {
  const response = await call('GET', '/v1/audit/events?limit=2', auditor);
  expect(openApiMismatches('GET', '/audit/events', response)).toEqual([]);
});
