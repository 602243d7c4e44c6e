import { setImmediate } from 'node:timers/promises';

/**
 * How many items a loop that replays or streams may hand on before it lets the event loop take its
 * other work. A replay whose items and consumer both answer at once runs on promises alone, which
 * never yield to I/O: one subscription resumed from the store's start held every other request
 * for seconds (about 3 s at 20,000 pets, found by attacking the service).
 */
export const ITEMS_PER_TURN = 64;

/** Resolves in the event loop's next turn, after the I/O that is waiting. */
export function nextTurn(): Promise<void> {
  return setImmediate();
}

/**
 * How many events a fold (a read model following the store, a rebuild beside it) applies before it
 * lets the event loop take its other work: about one of the embedded store's read batches (a few
 * milliseconds). Per batch would be too often on KurrentDB, whose subscription hands events on one
 * at a time: a turn costs about 3 µs, a second for every 300,000 events.
 */
export const EVENTS_PER_TURN = 2000;

/**
 * Counts what a loop applies, and gives it a turn of the event loop to wait for once `perTurn`
 * items have been applied since the last: undefined until then.
 */
export function turnsEvery(perTurn: number): (applied: number) => Promise<void> | undefined {
  let since = 0;
  return (applied) => {
    since += applied;
    if (since < perTurn) return undefined;
    since = 0;
    return setImmediate();
  };
}
