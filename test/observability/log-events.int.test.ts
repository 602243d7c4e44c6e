import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { petListProjection } from '../../projections/pet-list.ts';
import type { EventStore } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { startForwarder } from '../../src/forwarding/forwarder.ts';
import { ProjectionGroup } from '../../src/read-models/runner.ts';
import { snapshotDirectory } from '../../src/read-models/snapshot-file.ts';
import { controlledClock, type GuardedApp, startGuardedApp } from '../support/guarded-app.ts';
import { capturedLogger } from '../support/log-lines.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * What an operator alerts on is logged as an event of its own, with an `event` field to filter by:
 * a key banned, a read model rebuilt, the forwarder failing.
 */

let temp: ReturnType<typeof makeTempDir> | undefined;
let store: EventStore | undefined;
let service: GuardedApp | undefined;
afterEach(async () => {
  await service?.close();
  await store?.close();
  temp?.remove();
  [service, store, temp] = [undefined, undefined, undefined];
});

function openStore(): EventStore {
  temp = makeTempDir();
  store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  return store;
}

describe('events in the log', () => {
  it('api_key.banned: the key id and the end of the ban, never the key', async () => {
    const { logger, lines } = capturedLogger();
    const clock = controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5));
    service = await startGuardedApp({ clock, env: { RATE_LIMIT_BAN_SECONDS: '600' }, logger });
    const { secret, keyId } = await service.issueKey({ plan: 'free' });
    for (let i = 0; i < 72; i++)
      await service.app.inject({ url: '/v1/pets', headers: { authorization: `Bearer ${secret}` } });
    expect(lines.filter((line) => line.event === 'api_key.banned')).toEqual([
      expect.objectContaining({ level: 40, keyId, until: '2030-01-15T10:10:05.000Z', msg: 'API key banned' }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  it('read_model.rebuild: which read model, and why', async () => {
    const events = openStore();
    const metadata = {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      schemaVersion: 1,
    };
    await events.appendToStream('pet-1', [
      { type: 'PetCreated', data: { id: 1, name: 'Rex', categoryId: 1 }, metadata },
    ]);
    const snapshots = snapshotDirectory(path.join(temp!.dir, 'snapshots'));
    await snapshots.save(
      {
        projection: petListProjection.name,
        version: -1,
        checkpoint: '1',
        checkpointEventId: metadata.eventId,
      },
      [],
    );
    const { logger, lines } = capturedLogger();
    const group = new ProjectionGroup({ store: events, logger, snapshots });
    group.add(petListProjection);
    await group.start();
    await group.stop();
    expect(lines.filter((line) => line.event === 'read_model.rebuild')).toEqual([
      expect.objectContaining({
        level: 40,
        projection: 'pet-list',
        why: `projection version -1 -> ${petListProjection.version}`,
      }),
    ]);
  });

  it('forwarder.fault: each failure of a forwarding session, with the error', async () => {
    const events = openStore();
    const metadata = {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      schemaVersion: 1,
    };
    await events.appendToStream('pet-1', [{ type: 'PetCreated', data: {}, metadata }]);
    const { logger, lines } = capturedLogger();
    let failures = 2;
    const forwarder = startForwarder({
      store: events,
      log: logger,
      retryDelayMs: 1,
      createPublisher: () => ({
        connect: async () => {
          if (failures-- > 0) throw new Error('broker unreachable');
        },
        readCheckpoint: async () => undefined,
        publish: async () => {},
        close: async () => {},
      }),
    });
    const deadline = Date.now() + 5_000;
    const faults = () => lines.filter((line) => line.event === 'forwarder.fault');
    while (faults().length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await forwarder.stop();
    expect(faults()).toHaveLength(2);
    expect(faults()[0]).toMatchObject({ level: 40, err: { message: 'broker unreachable' } });
  });
});
