import type { FastifyRequest } from 'fastify';
import type { ChangeOptions } from '../../application/index.ts';
import { ValidationError } from '../../shared/errors.ts';
import { parseIfMatch, parseIfNoneMatch } from './etag.ts';

/** Reading query, path and header values the same way on every route. */

export function stringParam(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ValidationError(`${name} must be given at most once.`, name);
  return value;
}

/**
 * The query of a write, which takes only the parameters `allowed`: any other is a 400, as a body
 * field is (see `noFields`), rather than ignored. A client that sends one expects it to count:
 * `?reason=` on a cancellation, whose reason goes in its body, would otherwise be dropped from the
 * audit trail without a word. `what` says what the operation takes instead.
 */
export function onlyQueryParams(request: FastifyRequest, allowed: readonly string[], what: string): void {
  const unknown = Object.keys(request.query as object).find((name) => !allowed.includes(name));
  if (unknown !== undefined) {
    throw new ValidationError(`Query parameter ${unknown} cannot be set; ${what}.`, unknown);
  }
}

/**
 * The query of a read that answers only the present: `asOf` is a 400, rather than the present
 * answered to a client that asked for the past (and takes it for the past). Other parameters a read
 * does not take stay tolerated (cache-busters). `why` says what the read answers and what reads the
 * past instead.
 */
export function presentOnly(request: FastifyRequest, why: string): void {
  if ((request.query as Record<string, unknown>).asOf === undefined) return;
  throw new ValidationError(`Query parameter asOf cannot be set: ${why}.`, 'asOf');
}

/** Decimal digits only: "1e2", "0x10", " 5" and "5.0" are not integers here. */
export function integerParam(query: Record<string, unknown>, name: string): number | undefined {
  const value = stringParam(query, name);
  if (value === undefined) return undefined;
  if (!/^-?\d{1,20}$/.test(value)) throw new ValidationError(`${name} must be an integer.`, name);
  return Number(value);
}

/** An int64 path parameter, exactly (ids above 2^53−1 are well-formed, and found nowhere). */
export function idParam(request: FastifyRequest, name: string): bigint {
  const raw = (request.params as Record<string, string>)[name]!;
  if (!/^-?\d{1,25}$/.test(raw)) throw new ValidationError(`${name} must be an integer.`, name);
  return BigInt(raw);
}

/**
 * The body of an operation that takes none: absent or `{}`. A field is a 400, as on every other
 * route, rather than ignored: a client that sends one expects it to count; so is any JSON but an
 * object (`null` included, as in a PATCH). `what` names the operation and says where its input
 * goes instead ("removing a pet takes no fields (…)").
 */
export function noFields(body: unknown, what: string): void {
  if (body === undefined) return;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError(`The body must be empty or {}: ${what}.`);
  }
  const field = Object.keys(body)[0];
  if (field !== undefined) throw new ValidationError(`Field ${field} cannot be set; ${what}.`, field);
}

/**
 * A change's preconditions as the application's change options: the versions `If-Match` names
 * (none for `*` or no header) and those `If-None-Match` names (`*`: any current version).
 */
export function preconditions(request: FastifyRequest): ChangeOptions {
  const condition = parseIfMatch(request.headers['if-match']);
  const unwanted = parseIfNoneMatch(request.headers['if-none-match']);
  return {
    ...(condition !== undefined && 'versions' in condition && { expectedVersions: condition.versions }),
    ...(unwanted !== undefined && { unwantedVersions: unwanted }),
  };
}

/**
 * The next page's URL, keeping the query's limit, status and asOf. The limit was validated by then
 * (decimal digits), so it goes in as it came; status and asOf are encoded, so that no value a
 * client sent can end the link or the header (a read that tolerates a parameter it does not take,
 * as a history does `status`, passes only those it takes).
 */
export function nextPageLink(path: string, query: Record<string, unknown>, after: number): string {
  let link = `<${path}?`;
  if (typeof query.limit === 'string') link += `limit=${query.limit}&`;
  if (typeof query.status === 'string') link += `status=${encodeURIComponent(query.status)}&`;
  if (typeof query.asOf === 'string') link += `asOf=${encodeURIComponent(query.asOf)}&`;
  return `${link}after=${after}>; rel="next"`;
}
