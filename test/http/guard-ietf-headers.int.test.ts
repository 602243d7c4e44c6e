import { parseList } from 'structured-headers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  controlledClock,
  type ControlledClock,
  type GuardedApp,
  startGuardedApp,
} from '../support/guarded-app.ts';

/**
 * The IETF RateLimit-Policy and RateLimit fields, on every response that carries the X-RateLimit
 * set, through the real guard, agreeing with it.
 */

const START = Date.UTC(2030, 0, 15, 10, 0, 5);
const FREE_POLICIES = '"minute";q=60;w=60, "day";q=1000;w=86400';
const ANONYMOUS_POLICIES = '"minute";q=20;w=60, "day";q=200;w=86400';

let clock: ControlledClock;
let service: GuardedApp;

beforeEach(async () => {
  clock = controlledClock(START);
  service = await startGuardedApp({ clock, env: { RATE_LIMIT_BAN_SECONDS: '300' } });
});
afterEach(async () => {
  await service.close();
});

type Headers = Record<string, string | string[] | number | undefined>;

const get = (url: string, secret?: string) =>
  service.app.inject({
    method: 'GET',
    url,
    headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` },
  });

const ietf = (headers: Headers) => [headers['ratelimit-policy'], headers.ratelimit];

/**
 * What the RateLimit field says, read with a Structured Field parser, beside what the X- set says:
 * the window's name and limit, the requests left, and the Unix second at which the window ends.
 */
function agreement(headers: Headers) {
  const [[window, parameters]] = parseList(String(headers.ratelimit)) as [[string, Map<string, number>]];
  const policies = new Map(
    parseList(String(headers['ratelimit-policy'])).map(([name, policy]) => [
      name,
      (policy as Map<string, number>).get('q'),
    ]),
  );
  return {
    ietf: {
      limit: policies.get(window),
      remaining: parameters.get('r'),
      reset: Math.floor(clock.nowMs() / 1000) + parameters.get('t')!,
    },
    x: {
      limit: Number(headers['x-ratelimit-limit']),
      remaining: Number(headers['x-ratelimit-remaining']),
      reset: Number(headers['x-ratelimit-reset']),
    },
  };
}

describe('with a key', () => {
  it('gives a free key its plan as policies and the minute as its service limit', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    const response = await get('/v1/pets', secret);
    expect(response.statusCode).toBe(200);
    expect(ietf(response.headers)).toEqual([FREE_POLICIES, '"minute";r=59;t=55']);
  });

  it('agrees with the X- set on every response of a key that runs into its limit and its ban', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    const statuses = new Set<number>();
    for (let i = 0; i < 75; i++) {
      const response = await get('/v1/pets', secret);
      statuses.add(response.statusCode);
      const { ietf: said, x } = agreement(response.headers);
      expect(said).toEqual(x);
      clock.advance(100);
    }
    expect([...statuses]).toEqual([200, 429]);
  });

  it('gives Retry-After as the effective window of a 429', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    for (let i = 0; i < 60; i++) await get('/v1/pets', secret);
    const refused = await get('/v1/pets', secret);
    expect(refused.statusCode).toBe(429);
    expect([refused.headers.ratelimit, refused.headers['retry-after']]).toEqual(['"minute";r=0;t=55', '55']);
  });

  it('names the day once the day binds', async () => {
    const { secret } = await service.issueKey({ plan: 'enterprise', perMinute: 100, perDay: 100 });
    const response = await get('/v1/pets', secret);
    expect(ietf(response.headers)).toEqual([
      '"minute";q=100;w=60, "day";q=100;w=86400',
      `"day";r=99;t=${Date.UTC(2030, 0, 16) / 1000 - START / 1000}`,
    ]);
  });

  it('leaves nothing until the ban ends while a key is banned', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    for (let i = 0; i < 71; i++) await get('/v1/pets', secret);
    clock.advance(60_000);
    const during = await get('/v1/pets', secret);
    expect(during.json().code).toBe('banned');
    expect(ietf(during.headers)).toEqual([FREE_POLICIES, '"minute";r=0;t=240']);
    expect(agreement(during.headers).ietf).toEqual(agreement(during.headers).x);
  });

  it('agrees with the X- set while a key is banned by a request made within a second', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    clock.advance(300);
    for (let i = 0; i < 71; i++) await get('/v1/pets', secret);
    const during = await get('/v1/pets', secret);
    expect(during.json().code).toBe('banned');
    expect(agreement(during.headers).ietf).toEqual(agreement(during.headers).x);
  });
});

describe('without a key', () => {
  it('gives the address’s limits on a 401', async () => {
    const response = await get('/v1/pets');
    expect(response.statusCode).toBe(401);
    expect(ietf(response.headers)).toEqual([ANONYMOUS_POLICIES, '"minute";r=19;t=55']);
  });

  it('gives the public routes’ limits', async () => {
    const response = await get('/v1/openapi.json');
    expect(response.statusCode).toBe(200);
    expect(ietf(response.headers)).toEqual([ANONYMOUS_POLICIES, '"minute";r=19;t=55']);
  });

  it('gives them on a URL the router refuses, as the X- set', async () => {
    const response = await get('/v1/pets/%zz');
    expect(response.statusCode).toBe(401);
    expect(agreement(response.headers).ietf).toEqual(agreement(response.headers).x);
  });
});

it('gives neither set on the health probe', async () => {
  const response = await get('/health');
  expect([response.headers['x-ratelimit-limit'], ...ietf(response.headers)]).toEqual([
    undefined,
    undefined,
    undefined,
  ]);
});
