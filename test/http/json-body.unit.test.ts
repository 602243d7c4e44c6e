import { describe, expect, it } from 'vitest';
import { memberRefusal } from '../../src/http/json-body.ts';

describe('memberRefusal: the 400 a GraphQL body gets before Yoga parses it', () => {
  it('refuses a member named __proto__ at any depth', () => {
    expect(memberRefusal('{"variables":{"input":{"__proto__":{"x":1},"name":"Rex"}}}')).toMatchObject({
      code: 'validation_failed',
      field: '__proto__',
      message: 'The body holds a member named "__proto__", which is refused wherever it appears.',
    });
  });

  it('refuses __proto__ spelled with escapes', () => {
    expect(memberRefusal('{"\\u005f_proto__":{}}')).toMatchObject({ field: '__proto__' });
  });

  it('refuses a constructor member that holds prototype', () => {
    expect(memberRefusal('{"variables":{"constructor":{"prototype":{"x":1}}}}')).toMatchObject({
      field: 'constructor',
    });
  });

  it('refuses a member named twice', () => {
    expect(memberRefusal('{"query":"{ a }","query":"{ b }"}')).toMatchObject({ field: 'query' });
  });

  it('leaves text that is not JSON to Yoga, though it repeats a name or names __proto__', () => {
    expect(memberRefusal('{"query":"{ a }","query":')).toBeUndefined();
    expect(memberRefusal('{"__proto__":')).toBeUndefined();
    expect(memberRefusal('{"\\x":1,"\\x":2}')).toBeUndefined();
    expect(memberRefusal('')).toBeUndefined();
  });

  it('lets a body through that only mentions the names in strings', () => {
    expect(
      memberRefusal('{"query":"{ __proto__ constructor }","variables":{"note":"prototype"}}'),
    ).toBeUndefined();
  });
});
