import { parse } from 'fast-querystring';
import { BadRequestError } from '../shared/errors.ts';

/** Set on a parsed query whose text holds a percent-encoding that is not UTF-8 (`%FF`, `%E2%82`). */
const MALFORMED = Symbol('malformed percent-encoding');

export type Query = Record<string, unknown> & { [MALFORMED]?: true };

/**
 * Fastify's query-string parser (its own, fast-querystring), which keeps a value it cannot decode as
 * it was sent: `?reason=%FF` would reach a route as the three characters "%FF", which `?reason=%25FF`
 * also gives. Such a query is marked, for `checkQueryEncoding`: a malformed percent-encoding in the
 * query is the client's 400, as one in the path is.
 */
export function parseQueryString(text: string): Query {
  const query = parse(text) as Query;
  if (text.includes('%') && !decodesAsUtf8(text)) query[MALFORMED] = true;
  return query;
}

/**
 * The 400 for a query `parseQueryString` marked, on every route alike, those that take no query
 * parameters included: a write must not go through under a URL that is not well-formed.
 */
export function queryFault(query: unknown): BadRequestError | undefined {
  return (query as Query | undefined)?.[MALFORMED] === true
    ? new BadRequestError('bad_request', MALFORMED_QUERY)
    : undefined;
}

export const MALFORMED_QUERY = 'The query string is not valid: it holds a malformed percent-encoding.';

/**
 * Whether every percent-encoded sequence of `text` is UTF-8. Checked over the whole query at once: a
 * sequence cannot span `&` or `=`, so the whole decodes exactly when each name and value does.
 */
export function decodesAsUtf8(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
