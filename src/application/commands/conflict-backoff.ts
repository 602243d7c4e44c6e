/** The longest a change waits after one conflict before it decides again. */
const MAX_BACKOFF_MS = 1000;

/**
 * After a change lost the race to append to a stream (another process's change to the same pet
 * came first, as changes in one process take turns): waits a random while, up to twice as long
 * after each lost attempt, before it decides again. Without it, the process whose changes keep
 * winning decides each next one on its read model, at once, while the other reads the store
 * first and so loses again and again: with a few dozen changes to one pet sent at once through
 * two processes, some lost every one of their attempts (a 500).
 */
export function backOffAfterConflict(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(MAX_BACKOFF_MS, 4 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
