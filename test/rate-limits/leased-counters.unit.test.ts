import { describe, expect, it } from 'vitest';
import {
  CounterBroker,
  type GiveBackRequest,
  leasedCounters,
  type TakeRequest,
} from '../../src/rate-limits/leased-counters.ts';

/** Workers' counters over one broker, with the IPC channel replaced by direct calls that are counted. */
function cluster(workers: number, nowMs = () => NOW) {
  const broker = new CounterBroker(() => workers, { nowMs });
  let messages = 0;
  const take = async (request: Omit<TakeRequest, 'channel' | 'id'>) => {
    messages += 1;
    return { channel: 'petstore-counters' as const, ...broker.take({ ...request, id: messages }) };
  };
  const giveBack = (request: Omit<GiveBackRequest, 'channel'>) => {
    messages += 1;
    broker.giveBack(request);
  };
  const counters = Array.from({ length: workers }, () =>
    leasedCounters(take, giveBack).counter('key:m', 60_000),
  );
  return { counters, messages: () => messages };
}

const NOW = Date.UTC(2030, 0, 15, 10, 0, 5);

async function admitted(
  counter: ReturnType<typeof cluster>['counters'][number],
  requests: number,
  limit: number,
) {
  let count = 0;
  for (let i = 0; i < requests; i++) if ((await counter.consume('key_1', NOW, 1, limit)) <= limit) count += 1;
  return count;
}

describe('leased counters over a broker', () => {
  it('admit exactly the limit across workers, however the requests are spread', async () => {
    const { counters } = cluster(2);
    const [a, b] = counters;
    const first = await admitted(a!, 40, 60);
    const second = await admitted(b!, 40, 60);
    expect(first + second).toBe(60);
  });

  it('admit the whole limit through one worker while another holds nothing of it', async () => {
    const { counters } = cluster(2);
    await admitted(counters[1]!, 1, 60);
    expect(await admitted(counters[0]!, 100, 60)).toBe(59);
  });

  it('ask the broker once per many requests when the limit is far away', async () => {
    const { counters, messages } = cluster(2);
    await admitted(counters[0]!, 10_000, 100_000_000);
    expect(messages()).toBeLessThan(20);
  });

  it('count a refused request at the broker, so that counts past the limit are exact', async () => {
    const { counters } = cluster(2);
    await admitted(counters[0]!, 60, 60);
    expect(await counters[1]!.consume('key_1', NOW, 1, 60)).toBe(61);
    expect(await counters[0]!.consume('key_1', NOW, 1, 60)).toBe(62);
  });

  it('start a new window from nothing', async () => {
    const { counters } = cluster(1);
    await admitted(counters[0]!, 60, 60);
    expect(await counters[0]!.consume('key_1', NOW + 60_000, 1, 60)).toBe(1);
  });

  it('count a request in its own window when another worker’s request of the next window reached the broker first', async () => {
    const { counters } = cluster(2, () => NOW + 55_000); // the next window has just begun
    const [a, b] = counters;
    await admitted(a!, 60, 60);
    expect(await b!.consume('key_1', NOW + 60_000, 1, 60)).toBe(1);
    expect(await a!.consume('key_1', NOW, 1, 60)).toBe(61);
    expect(await b!.consume('key_1', NOW + 60_000, 1, 60)).toBe(2);
  });

  it('count the requests of a window long past (a clock stepped back) in the newest window, so a spent key stays refused', async () => {
    const { counters } = cluster(2, () => NOW + 125_000); // two windows on from NOW's
    const [a, b] = counters;
    for (let i = 0; i < 60; i++) await a!.consume('key_1', NOW + 120_000, 1, 60);
    const stepped = [];
    for (let i = 0; i < 3; i++) stepped.push(await b!.consume('key_1', NOW, 1, 60));
    expect(stepped).toEqual([61, 62, 63]);
  });

  it('give a refunded token back to the worker for its next request when the limit is far away', async () => {
    const { counters, messages } = cluster(1);
    await counters[0]!.consume('key_1', NOW, 1, 100_000_000);
    const before = messages();
    counters[0]!.refund('key_1', NOW, 1);
    expect(await counters[0]!.consume('key_1', NOW, 1, 100_000_000)).toBe(1);
    expect(messages()).toBe(before);
  });

  it('give refunded tokens back to the broker near the limit, for another worker to use', async () => {
    const { counters } = cluster(2);
    const [a, b] = counters;
    await a!.consume('key_1', NOW, 1, 10);
    // A GraphQL document's further points, granted here and taken back as the other window refused them.
    expect(await a!.consume('key_1', NOW, 8, 10)).toBe(9);
    a!.refund('key_1', NOW, 8);
    expect(await b!.consume('key_1', NOW, 9, 10)).toBe(10);
  });

  it('take a refunded refusal off the broker’s count, never turning it into a token', async () => {
    const { counters } = cluster(2);
    const [a, b] = counters;
    await admitted(a!, 5, 5);
    // The minute window refuses, so the rate limiter refunds the day window's refused request.
    expect(await a!.consume('key_1', NOW, 1, 5)).toBe(6);
    a!.refund('key_1', NOW, 1);
    expect(await admitted(a!, 3, 5)).toBe(0);
    // 6 counted, 1 taken back, 3 more refused, and this one.
    expect(await b!.consume('key_1', NOW, 1, 5)).toBe(9);
  });
});
