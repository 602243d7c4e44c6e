import { describe, expect, it } from 'vitest';
import { FastPathRequest } from '../../../src/http/graphql/fast-path.ts';

describe('FastPathRequest, the request Yoga’s plugins see on the fast path', () => {
  const request = new FastPathRequest({
    'content-type': 'application/json',
    'set-cookie': ['a=1', 'b=2'],
  });

  it('is a POST', () => {
    expect(request.method).toBe('POST');
  });

  it('reads headers as Fetch Headers do: any case, repeated values joined, absent as null', () => {
    expect(request.headers.get('Content-Type')).toBe('application/json');
    expect(request.headers.get('Set-Cookie')).toBe('a=1, b=2');
    expect(request.headers.get('authorization')).toBeNull();
    expect(request.headers.has('CONTENT-TYPE')).toBe(true);
    expect(request.headers.has('authorization')).toBe(false);
  });
});
