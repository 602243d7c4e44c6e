import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeApiKeyPlan } from '../../src/application/commands/api-keys.ts';
import { EVENTS_PER_REQUEST } from '../../src/application/queries/replay-cost.ts';
import type { Clock } from '../../src/shared/context.ts';
import { type ListeningApp, startListeningApp } from '../support/listening-app.ts';
import { appendNoise as seedNoise } from '../support/seed-store.ts';
import { readSse } from '../support/sse.ts';
import { subscribeOverSse } from './graphql/graphql-server.ts';

/**
 * A stream resumed from far back reads the store from there, the events its filter passes over
 * included: it pays one request for every 10,000 events it reads, from the budget of the key that
 * opened it, as the pages that would read them do (src/application/queries/replay-cost.ts).
 */

/** The system clock moved `offsetMs` on, which a test may move further: windows of its own choosing. */
function movableClock(offsetMs: number): Clock & { advance(ms: number): void } {
  let offset = offsetMs;
  return {
    nowMs: () => Date.now() + offset,
    now: () => new Date(Date.now() + offset),
    advance: (ms) => void (offset += ms),
  };
}

/** One second into a minute window of the limiter, whatever the time: a test has 59 s of one window. */
const clock = movableClock(61_000 - (Date.now() % 60_000));
let server: ListeningApp;

/** The rate-limit decisions the guard made, as the metrics count them, by key plan. */
const decisions: string[] = [];

beforeAll(async () => {
  server = await startListeningApp({ clock, onDecision: (decision) => decisions.push(decision) });
});
afterAll(() => server.close());

const LIMITS = { perMinute: 100, perDay: 10_000 };

function metadata() {
  return {
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'c',
    schemaVersion: 1,
  };
}

/** `count` events of a type no filter asks for. */
const appendNoise = (count: number) => seedNoise(server.testApp.store, count);

async function appendNeedle(): Promise<bigint> {
  const { position } = await server.testApp.store.appendToStream(`needle-${randomUUID()}`, [
    { type: 'Needle', data: {}, metadata: metadata() },
  ]);
  return position!;
}

/** What the key has left of its minute, as a page of the feed answers (the page counts one). */
async function remainingAfterAPage(key: { authorization: string }): Promise<string | null> {
  const response = await fetch(`${server.origin}/v1/audit/events?limit=1`, { headers: key });
  await response.body?.cancel();
  return response.headers.get('x-ratelimit-remaining');
}

const key = async (scopes: string[]) => {
  const { authorization } = await server.issueKey(scopes, 'replayer', LIMITS);
  return { authorization };
};

describe('a replay pays one request for every 10,000 events it reads', () => {
  it('over REST: a filtered feed from far back, 25,001 events read, pays 2 besides the request that opened it', async () => {
    const auditor = await key(['audit:read']);
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(25_000);
    const needle = await appendNeedle();
    const events = await readSse(`${server.origin}/v1/audit/events?type=Needle&after=${from}`, auditor, 1);
    expect(events.map((event) => event.id)).toEqual([String(needle)]);
    expect(await remainingAfterAPage(auditor)).toBe(String(100 - 1 - 2 - 1));
  });

  it('over GraphQL: auditEvent(after:) pays as REST’s feed does', async () => {
    const auditor = await key(['audit:read']);
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(25_000);
    const needle = await appendNeedle();
    const query = `subscription { auditEvent(after: "${from}", type: "Needle") { position } }`;
    const events = await subscribeOverSse(`${server.origin}/graphql`, query, 1, async () => {}, auditor);
    expect(events).toEqual([
      { data: { auditEvent: { position: String(needle) } }, extensions: { storePosition: String(needle) } },
    ]);
    expect(await remainingAfterAPage(auditor)).toBe(String(100 - 1 - 2 - 1));
  });

  it('over GraphQL: petChanged(after:) pays for the store it reads and the pet’s stream it folds', async () => {
    const reader = await key(['pets:read', 'audit:read']);
    const context = { correlationId: 'c' };
    const { pet } = await server.testApp.application.createPet({ name: 'Rex', categoryId: 1 }, context);
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(25_000);
    const renamed = await server.testApp.application.updatePet(pet.id, { name: 'Max' }, context);
    const query = `subscription { petChanged(after: "${from}") { type id version } }`;
    const changes = await subscribeOverSse(`${server.origin}/graphql`, query, 1, async () => {}, reader);
    expect(changes).toEqual([
      {
        data: { petChanged: { type: 'updated', id: pet.id, version: 1 } },
        extensions: { storePosition: String(renamed.position) },
      },
    ]);
    // 25,001 events read from the store, and the pet's 2 folded: 25,003.
    expect(await remainingAfterAPage(reader)).toBe(String(100 - 1 - 2 - 1));
  });

  it('over GraphQL: orderChanged(after:) pays for the store it reads and the order’s stream it folds', async () => {
    const admin = await key(['orders:read', 'admin', 'audit:read']);
    const context = { correlationId: 'c' };
    const { pet } = await server.testApp.application.createPet(
      { name: 'Rex', categoryId: 1, status: 'available' },
      context,
    );
    const { order } = await server.testApp.application.placeOrder({ petId: pet.id }, context);
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(25_000);
    await server.testApp.application.cancelOrder(order.id, context);
    const query = `subscription { orderChanged(after: "${from}") { id status } }`;
    const changes = await subscribeOverSse(`${server.origin}/graphql`, query, 1, async () => {}, admin);
    expect(changes).toEqual([
      {
        data: { orderChanged: { id: order.id, status: 'cancelled' } },
        extensions: { storePosition: expect.any(String) },
      },
    ]);
    // 25,002 events read from the store (the noise, the cancellation and its pet's event), and the order's 2 folded.
    expect(await remainingAfterAPage(admin)).toBe(String(100 - 1 - 2 - 1));
  });

  it('pays nothing for the live events that come after the store’s head as it was when the stream opened', async () => {
    const auditor = await key(['audit:read']);
    let needle: bigint | undefined;
    const events = await readSse(`${server.origin}/v1/audit/events?type=Needle`, auditor, 1, async () => {
      await appendNoise(25_000);
      needle = await appendNeedle();
    });
    expect(events.map((event) => event.id)).toEqual([String(needle)]);
    expect(await remainingAfterAPage(auditor)).toBe(String(100 - 1 - 1));
  });

  it(`pays nothing more for a replay of fewer than ${EVENTS_PER_REQUEST} events`, async () => {
    const auditor = await key(['audit:read']);
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(EVENTS_PER_REQUEST - 1);
    const needle = await appendNeedle();
    const events = await readSse(`${server.origin}/v1/audit/events?type=Needle&after=${from}`, auditor, 1);
    expect(events.map((event) => event.id)).toEqual([String(needle)]);
    expect(await remainingAfterAPage(auditor)).toBe(String(100 - 1 - 1));
  });
});

describe('a filtered stream over REST', () => {
  it('sends the position it read to, as an id alone, after every 10,000 events its filter passed over', async () => {
    const auditor = await key(['audit:read']);
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(25_000);
    const needle = await appendNeedle();
    const url = `${server.origin}/v1/audit/events?type=Needle&after=${from}`;
    const frames = await readSse(url, auditor, 3, async () => {}, true);
    expect(frames).toEqual([
      { id: String(from + 10_000n), data: undefined },
      { id: String(from + 20_000n), data: undefined },
      { id: String(needle), data: expect.objectContaining({ type: 'Needle' }) },
    ]);
  });

  it('resumed from such an id, reads and pays for what it passed over only once', async () => {
    const auditor = await key(['audit:read']);
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(25_000);
    const url = `${server.origin}/v1/audit/events?type=Needle&after=${from}`;
    const [, second] = await readSse(url, auditor, 2, async () => {}, true);
    const needle = await appendNeedle();
    const resumed = await readSse(url, { ...auditor, 'last-event-id': second!.id! }, 1);
    expect(resumed.map((event) => event.id)).toEqual([String(needle)]);
    // The first stream (1) and its 2 further; the second stream (1) with 5,001 events to read.
    expect(await remainingAfterAPage(auditor)).toBe(String(100 - 1 - 2 - 1 - 1));
  });
});

describe('a replay whose key has spent its budget', () => {
  it('waits, its stream open, and reads on once the next window gives it room', async () => {
    const { authorization } = await server.issueKey(['audit:read'], 'spent', {
      perMinute: 2,
      perDay: 10_000,
    });
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(20_001);
    const needle = await appendNeedle();
    let arrived = false;
    decisions.length = 0;
    const events = readSse(
      `${server.origin}/v1/audit/events?type=Needle&after=${from}`,
      { authorization },
      1,
    );
    void events.then(() => (arrived = true));
    // The stream (1) and the first 10,000 further events (2) fit; the next 10,000 wait.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(arrived).toBe(false);
    // Asked again every second, it counts one refusal however long it waits.
    expect(decisions.filter((decision) => decision === 'limited')).toHaveLength(1);
    const refused = await fetch(`${server.origin}/v1/audit/events?limit=1`, { headers: { authorization } });
    expect(refused.status).toBe(429);
    clock.advance(60_000);
    expect((await events).map((event) => event.id)).toEqual([String(needle)]);
    // It paid in the new window, before this page: nothing is left.
    expect(await remainingAfterAPage({ authorization })).toBe('0');
  });

  it('goes on as soon as the key’s plan gives it room, without waiting for the window', async () => {
    clock.advance(61_000 - (clock.nowMs() % 60_000)); // one second into a new minute: 59 s before it ends
    const { authorization, keyId } = await server.issueKey(['audit:read'], 'raised', {
      perMinute: 2,
      perDay: 10_000,
    });
    const from = (await server.testApp.store.headPosition())!;
    await appendNoise(20_001);
    const needle = await appendNeedle();
    const events = readSse(
      `${server.origin}/v1/audit/events?type=Needle&after=${from}`,
      { authorization },
      1,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500)); // waiting for its third request
    const deps = { store: server.testApp.store, clock };
    const raised = await changeApiKeyPlan(
      deps,
      keyId,
      { plan: 'enterprise', perMinute: 100, perDay: 10_000 },
      {
        correlationId: 'c',
      },
    );
    await server.testApp.service.auth.keys.waitFor(raised.position!);
    const inTenSeconds = new Promise((resolve) => setTimeout(resolve, 10_000, 'still waiting after 10 s'));
    expect(await Promise.race([events.then((got) => got.map((event) => event.id)), inTenSeconds])).toEqual([
      String(needle),
    ]);
  });
});
