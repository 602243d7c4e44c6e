import type { IncomingHttpHeaders } from 'node:http';
import { PreconditionFailedError } from '../../shared/errors.ts';

/**
 * Entity tags for versioned resources (RFC 9110 §8.8.3): a pet's ETag is its stream revision,
 * `"3"`, so a client that sends it back in `If-Match` changes the pet only if nobody changed it
 * since, and reads it only while it is at that version (412 otherwise). `If-None-Match` on a read
 * answers 304 while it still holds, and on a change refuses it with 412 when it names the current
 * version (`*`: any), as RFC 9110 §13.1.2 asks. A tag that names no version (malformed, weak in
 * If-Match, or not a number) never matches: If-Match then fails with 412, and If-None-Match lets
 * the read through. Tags compare as the strings they are: `"00"` names no version.
 */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** What `If-Match` asks for: any current version (`*`), or one of these; undefined when absent. */
export type IfMatch = { readonly any: true } | { readonly versions: readonly number[] };

/** A tag as this service writes them: a version in decimal, without leading zeros (`"00"` is not `"0"`). */
const ENTITY_TAG = /^(W\/)?"(0|[1-9]\d{0,14})"$/;

export function parseIfMatch(header: string | string[] | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const joined = Array.isArray(header) ? header.join(',') : header;
  if (joined.trim() === '*') return { any: true };
  // If-Match compares strongly: a weak tag never matches.
  return { versions: tags(joined).flatMap((tag) => (tag.weak ? [] : [tag.version])) };
}

/** What `If-None-Match` names: any current version (`*`), or these (compared weakly); undefined when absent. */
export function parseIfNoneMatch(
  header: string | string[] | undefined,
): readonly number[] | 'any' | undefined {
  if (header === undefined) return undefined;
  const joined = Array.isArray(header) ? header.join(',') : header;
  return joined.trim() === '*' ? 'any' : tags(joined).map((tag) => tag.version);
}

/**
 * The preconditions of a read of one versioned resource, weighed as RFC 9110 §13.2.2 orders them:
 * an `If-Match` that names no current version throws a 412 (§13.1.1: the read is not performed);
 * then true when `If-None-Match` names the current version (weak comparison, `*`: any), for a 304.
 * `what` names the resource in the 412's message ("Pet 5").
 */
export function notModified(headers: IncomingHttpHeaders, what: string, version: number): boolean {
  const condition = parseIfMatch(headers['if-match']);
  if (condition !== undefined && 'versions' in condition && !condition.versions.includes(version)) {
    throw new PreconditionFailedError(what, version, condition.versions, 'read');
  }
  const named = parseIfNoneMatch(headers['if-none-match']);
  return named === 'any' || (named?.includes(version) ?? false);
}

function tags(list: string): { weak: boolean; version: number }[] {
  return list.split(',').flatMap((part) => {
    const tag = ENTITY_TAG.exec(part.trim());
    return tag === null ? [] : [{ weak: tag[1] !== undefined, version: Number(tag[2]) }];
  });
}
