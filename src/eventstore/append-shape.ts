import type { StreamAppend } from '../application/ports/event-store.ts';

/**
 * What every adapter refuses before writing anything: an append to no stream, a stream without
 * events, or a stream named twice (its second part would be checked against a revision the first
 * part is about to change).
 */
export function badAppendShape(appends: readonly StreamAppend[]): Error | undefined {
  if (appends.length === 0 || appends.some((append) => append.events.length === 0)) {
    return new Error('An append needs at least one event for each stream.');
  }
  if (appends.length > 1 && new Set(appends.map((append) => append.streamName)).size < appends.length) {
    return new Error('An append names each of its streams once.');
  }
  return undefined;
}
