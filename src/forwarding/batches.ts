/**
 * Groups a live feed into batches: a batch takes whatever arrives within `lingerMs` of its first
 * item, up to `maxSize`. When nothing arrives for `idleMs`, an empty batch is yielded, so the
 * caller can do periodic work while the feed is quiet. Ends when the feed ends.
 */
export type BatchOptions = { readonly maxSize: number; readonly lingerMs: number; readonly idleMs: number };

const TIMEOUT = Symbol('timeout');

export async function* batches<T>(feed: AsyncIterable<T>, options: BatchOptions): AsyncGenerator<T[]> {
  const iterator = feed[Symbol.asyncIterator]();
  let pending = iterator.next();
  for (;;) {
    const first = await within(pending, options.idleMs);
    if (first === TIMEOUT) {
      yield [];
      continue;
    }
    if (first.done) return;
    const batch = [first.value];
    pending = iterator.next();
    const deadline = Date.now() + options.lingerMs;
    while (batch.length < options.maxSize) {
      const next = await within(pending, Math.max(0, deadline - Date.now()));
      if (next === TIMEOUT) break;
      if (next.done) {
        yield batch;
        return;
      }
      batch.push(next.value);
      pending = iterator.next();
    }
    yield batch;
  }
}

/** The promise's value, or TIMEOUT after `ms`. A promise already settled always wins. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
