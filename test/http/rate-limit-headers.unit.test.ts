import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { decideRate } from '../../src/domain/rate-decision.ts';
import { bannedServiceLimit, quotaPolicies, serviceLimit } from '../../src/http/rate-limit-headers.ts';

/** The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11). */

const NOW = Date.UTC(2030, 0, 15, 10, 0, 5, 300);
const FREE = Object.freeze({ perMinute: 60, perDay: 1000 });

describe('RateLimit-Policy', () => {
  it('names both windows with their quota and length in seconds', () => {
    expect(quotaPolicies(FREE)).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');
  });

  it('is a Structured Field List of String Items with Integer parameters', () => {
    const parsed = parseList(quotaPolicies(FREE)).map(([name, parameters]) => [
      name,
      Object.fromEntries(parameters),
    ]);
    expect(parsed).toEqual([
      ['minute', { q: 60, w: 60 }],
      ['day', { q: 1000, w: 86400 }],
    ]);
  });

  it('is built once per set of limits, not per response', () => {
    expect(quotaPolicies(FREE)).toBe(quotaPolicies(FREE));
  });
});

describe('RateLimit', () => {
  it('names the binding window, with the requests left and the seconds until it ends', () => {
    expect(serviceLimit(decideRate(NOW, FREE, 1, 1), NOW)).toBe('"minute";r=59;t=55');
  });

  it('names the day once the day binds', () => {
    const status = decideRate(NOW, FREE, 1, 995);
    expect(serviceLimit(status, NOW)).toBe(
      `"day";r=5;t=${Date.UTC(2030, 0, 16) / 1000 - Math.floor(NOW / 1000)}`,
    );
  });

  it('agrees with X-RateLimit-Remaining and X-RateLimit-Reset, and with Retry-After when refused', () => {
    const status = decideRate(NOW, FREE, 61, 61);
    const [[name, parameters]] = parseList(serviceLimit(status, NOW)) as [[string, Map<string, number>]];
    expect([name, parameters.get('r'), parameters.get('t')]).toEqual([
      'minute',
      status.remaining,
      status.retryAfter,
    ]);
    expect(Math.floor(NOW / 1000) + parameters.get('t')!).toBe(status.reset);
  });

  it('while banned, leaves nothing in the minute until the ban ends', () => {
    expect(bannedServiceLimit(NOW + 600_000, NOW)).toBe('"minute";r=0;t=600');
  });
});
