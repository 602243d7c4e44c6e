import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Projection } from '../../projections/projection.ts';

/** Where two snapshot images first differ: a path into the parts, and each side's value there. */
export type Difference = { readonly path: string; readonly expected: string; readonly actual: string };

/**
 * Compares two snapshot images part by part, as JSON (so an absent field and an undefined one are
 * the same), and names the first difference. `expected` is the fresh fold's. Yields the event loop
 * between parts: a million pets take a while to compare, and a server keeps serving meanwhile.
 */
export async function compareParts(
  expected: Iterable<unknown>,
  actual: Iterable<unknown>,
): Promise<Difference | undefined> {
  const theirs = actual[Symbol.iterator]();
  let index = 0;
  for (const part of expected) {
    const other = theirs.next();
    if (other.done === true) return { path: `[${index}]`, expected: describe(part), actual: 'nothing' };
    const mine = JSON.stringify(part);
    if (mine !== JSON.stringify(other.value)) {
      return firstDifference(JSON.parse(mine), JSON.parse(JSON.stringify(other.value)), `[${index}]`);
    }
    index += 1;
    // After every part: sixteen parts of the pet list (32,768 pets) held the loop 50-70 ms.
    await nextTurn();
  }
  const extra = theirs.next();
  return extra.done === true
    ? undefined
    : { path: `[${index}]`, expected: 'nothing', actual: describe(extra.value) };
}

/**
 * Compares a fresh fold's state with a snapshot file's parts. A file that earlier code wrote may
 * hold the same state in another order (the pet list's pets in the order they were created, which
 * several processes interleave, before snapshots listed them by id): when the parts differ, what a
 * start makes of the file (read, then written again by this code) is compared in their place, so
 * that only a difference a start would serve is named. The fold's parts are both taken at once, at
 * its checkpoint, before anything is compared (the fold may move on meanwhile).
 */
export async function compareWithFile<State>(
  projection: Pick<Projection<State>, 'toSnapshot' | 'fromSnapshot'>,
  fold: State,
  file: Iterable<unknown>,
): Promise<Difference | undefined> {
  const [parts, again] = [projection.toSnapshot(fold), projection.toSnapshot(fold)];
  if ((await compareParts(parts, file)) === undefined) return undefined;
  return compareParts(again, projection.toSnapshot(projection.fromSnapshot(file)));
}

/** The first path at which two JSON values differ (object keys in either's order, then arrays by index). */
export function firstDifference(expected: unknown, actual: unknown, path: string): Difference | undefined {
  if (JSON.stringify(expected) === JSON.stringify(actual)) return undefined;
  const bothArrays = Array.isArray(expected) && Array.isArray(actual);
  const bothObjects = isObject(expected) && isObject(actual);
  if (!bothArrays && !bothObjects) return { path, expected: describe(expected), actual: describe(actual) };
  if (bothArrays) {
    const length = Math.max(expected.length, actual.length);
    for (let i = 0; i < length; i++) {
      const found = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const a = expected as Record<string, unknown>;
  const b = actual as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const found = firstDifference(a[key], b[key], `${path}.${key}`);
    if (found !== undefined)
      return Array.isArray(a.ids) ? withRecordId(found, `${path}.${key}`, a.ids) : found;
  }
  return undefined;
}

/** In a part of columns (one with `ids`), a difference at row i also names the record: `(id 42)`. */
function withRecordId(found: Difference, column: string, ids: unknown[]): Difference {
  const row = /^\[(\d+)\]/.exec(found.path.slice(column.length));
  return row === null ? found : { ...found, path: `${found.path} (id ${String(ids[Number(row[1])])})` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json.length > 120 ? `${json.slice(0, 117)}...` : json;
}
