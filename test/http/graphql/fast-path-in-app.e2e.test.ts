import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { controlledClock, type GuardedApp, startGuardedApp } from '../../support/guarded-app.ts';

/** Requests that reached Yoga's full handler, in every Yoga the app builds. */
let fullHandlerCalls = 0;
vi.mock('../../../src/http/graphql/yoga.ts', async (original) => {
  const actual = await original<typeof import('../../../src/http/graphql/yoga.ts')>();
  return {
    ...actual,
    createPetStoreYoga: (options: Parameters<typeof actual.createPetStoreYoga>[0]) =>
      // Yoga is itself a Proxy, on which vi.spyOn cannot replace a method.
      new Proxy(actual.createPetStoreYoga(options), {
        get(yoga, property) {
          const value: unknown = Reflect.get(yoga, property);
          if (property !== 'handleNodeRequestAndResponse' || typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            fullHandlerCalls++;
            return value.apply(yoga, args);
          };
        },
      }),
  };
});

let service: GuardedApp;
let authorization: string;
beforeAll(async () => {
  service = await startGuardedApp({ clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)) });
  authorization = `Bearer ${(await service.issueKey({ plan: 'free' })).secret}`;
});
afterAll(() => service.close());

/** How many requests reached Yoga's full handler while `send` ran, and the response. */
async function countFullHandlerCalls(send: () => Promise<{ statusCode: number; body: string }>) {
  const before = fullHandlerCalls;
  const response = await send();
  return { calls: fullHandlerCalls - before, status: response.statusCode, body: response.body };
}

const post = (accept?: string) => () =>
  service.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', authorization, ...(accept && { accept }) },
    payload: JSON.stringify({ query: '{ pets(first: 1) { pageInfo { hasNextPage } } }' }),
  });

const EMPTY_PAGE = '{"data":{"pets":{"pageInfo":{"hasNextPage":false}}}}';

describe('the fast path inside the real app, behind the real guard', () => {
  it.each([
    ['no Accept header', undefined],
    ['Apollo Client’s Accept header', 'application/graphql-response+json,application/json;q=0.9'],
  ])('answers a plain POST query with %s without Yoga’s full handler', async (_case, accept) => {
    expect(await countFullHandlerCalls(post(accept))).toEqual({ calls: 0, status: 200, body: EMPTY_PAGE });
  });

  it('leaves a GET to Yoga’s full handler (the spy sees it)', async () => {
    const query = encodeURIComponent('{ pets(first: 1) { pageInfo { hasNextPage } } }');
    const get = () =>
      service.app.inject({ method: 'GET', url: `/graphql?query=${query}`, headers: { authorization } });
    expect(await countFullHandlerCalls(get)).toEqual({ calls: 1, status: 200, body: EMPTY_PAGE });
  });
});

describe('a GET with many query parameters', () => {
  it('is handed to Yoga as its URL is, without its parameters set into the URL again one by one', async () => {
    const query = encodeURIComponent('{ pets(first: 1) { pageInfo { hasNextPage } } }');
    const others = Array.from({ length: 1000 }, (_, i) => `p${i}=x`).join('&');
    const set = vi.spyOn(URLSearchParams.prototype, 'set');
    let response;
    let sets;
    try {
      response = await service.app.inject({
        method: 'GET',
        url: `/graphql?query=${query}&${others}`,
        headers: { authorization },
      });
      sets = set.mock.calls.length;
    } finally {
      set.mockRestore();
    }
    // Each set serialised the whole query again: 1,000 parameters cost 140 ms of CPU.
    expect({ status: response.statusCode, body: response.body, sets }).toEqual({
      status: 200,
      body: EMPTY_PAGE,
      sets: 0,
    });
  });
});

describe('Accept with q-values, ranked as RFC 9110 says before either path reads it', () => {
  const answer = async (accept: string) => {
    const response = await post(accept)();
    return { status: response.statusCode, type: response.headers['content-type'] };
  };

  it('answers in the type with the higher q-value, though it is listed second', async () => {
    expect(await answer('application/json;q=0.5, application/graphql-response+json')).toEqual({
      status: 200,
      type: 'application/graphql-response+json; charset=utf-8',
    });
  });

  it('never answers in a type the client refused with q=0', async () => {
    expect(await answer('application/json;q=0, application/graphql-response+json;q=0.1')).toEqual({
      status: 200,
      type: 'application/graphql-response+json; charset=utf-8',
    });
  });

  it('reads Q=0 as q=0 (parameter names are case-insensitive): no event stream for a query', async () => {
    const response = await post('TEXT/EVENT-STREAM;Q=0')();
    expect([response.statusCode, response.json().code]).toEqual([406, 'not_acceptable']);
  });

  it('takes the q-value of the most specific range: application/json;q=0 refuses JSON though */* is listed', async () => {
    expect(await answer('application/json;q=0, */*;q=0.5')).toEqual({
      status: 200,
      type: 'application/graphql-response+json; charset=utf-8',
    });
  });

  it('reads a q-value written with spaces around the equals sign', async () => {
    const response = await post('application/json; q = 0')();
    expect([response.statusCode, response.json().code]).toEqual([406, 'not_acceptable']);
  });

  it('answers 406 not_acceptable when every type listed is refused with q=0', async () => {
    const response = await post('application/json;q=0, */*;q=0')();
    expect([response.statusCode, response.json().code]).toEqual([406, 'not_acceptable']);
  });
});
