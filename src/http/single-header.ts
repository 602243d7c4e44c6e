import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../shared/errors.ts';

/**
 * A header that may be sent once (`name` as the spec writes it: `Last-Event-ID`). Node joins the
 * lines of a header sent twice into one value (`5, 6`), and so does Fastify's inject(): only the raw
 * lines still tell them apart.
 */
export function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const key = name.toLowerCase();
  const value = request.headers[key];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || linesNamed(request.raw.rawHeaders, key) > 1)
    throw new ValidationError(`${name} must be sent at most once.`, name);
  return value;
}

/** How many lines of a request's headers (name, value, name, value…) are named `key` (lower case). */
function linesNamed(rawHeaders: readonly string[], key: string): number {
  let lines = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === key) lines++;
  return lines;
}
