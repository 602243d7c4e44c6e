import { LRUCache } from 'lru-cache';

/**
 * What one query text may cost the server while it is cached: its parsed document keeps every
 * token (about 80 bytes of heap per character of text), and each compiled form (graphql-jit's, in
 * Yoga's pipeline and in `compiled-operations.ts`) about 120 more, besides V8's code for it. A
 * count of entries bounds none of that: a thousand distinct 2 KB queries from one key took a
 * server past a 512 MB heap. The caches are bounded by the length of the texts they hold instead:
 * a frontend's fixed operations, a few dozen of a few hundred characters each, fit many times over,
 * and a client that sends a new text every time makes the least used ones go (to be parsed and
 * compiled again if they come back), never more memory.
 */
export const QUERY_TEXT_BUDGET = 64 * 1024;

/** At most this many entries, whatever their length (Yoga's own default). */
const MAX_ENTRIES = 1024;

/** A least-recently-used cache keyed by query text, holding texts of at most `budget` characters in all. */
export function queryTextCache<Value extends object>(budget = QUERY_TEXT_BUDGET): LRUCache<string, Value> {
  return new LRUCache<string, Value>({
    max: MAX_ENTRIES,
    maxSize: budget,
    // A text longer than the whole budget is not kept (lru-cache refuses it), which is right.
    sizeCalculation: (_value, query) => Math.max(1, query.length),
  });
}
