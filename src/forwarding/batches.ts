/**
 * Groups a live feed into batches: a batch takes whatever arrives within `lingerMs` of its first
 * item, up to `maxSize`. When nothing arrives for `idleMs`, an empty batch is yielded, so the
 * caller can do periodic work while the feed is quiet. Ends when the feed ends; a feed that fails
 * makes the next read of the batches fail with its error.
 */
export type BatchOptions = { readonly maxSize: number; readonly lingerMs: number; readonly idleMs: number };

const TIMEOUT = Symbol('timeout');

export async function* batches<T>(feed: AsyncIterable<T>, options: BatchOptions): AsyncGenerator<T[]> {
  const reads = new ReadAhead(feed[Symbol.asyncIterator]());
  for (;;) {
    const idle = new Deadline(options.idleMs);
    const first = await reads.next(idle).finally(() => idle.cancel());
    if (first === TIMEOUT) {
      yield [];
      continue;
    }
    if (first.done) return;
    const batch = [first.value];
    const linger = new Deadline(options.lingerMs);
    try {
      while (batch.length < options.maxSize) {
        const next = await reads.next(linger);
        if (next === TIMEOUT) break;
        if (next.done) {
          yield batch;
          return;
        }
        batch.push(next.value);
      }
    } finally {
      linger.cancel();
    }
    yield batch;
  }
}

type Outcome<T> = { readonly result: IteratorResult<T> } | { readonly error: unknown };

/**
 * Keeps one read of the feed in flight while the consumer works on a batch. Its outcome is held
 * here, so a feed that fails while nobody awaits it is never an unhandled rejection.
 */
class ReadAhead<T> {
  readonly #iterator: AsyncIterator<T>;
  #outcome: Outcome<T> | undefined;
  #wake: (() => void) | undefined;

  constructor(iterator: AsyncIterator<T>) {
    this.#iterator = iterator;
    this.#read();
  }

  /** The next item, or TIMEOUT when the deadline passes first. An item already there always wins. */
  async next(deadline: Deadline): Promise<IteratorResult<T> | typeof TIMEOUT> {
    if (this.#outcome === undefined) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        deadline.wait(resolve);
      });
      this.#wake = undefined;
    }
    const outcome = this.#outcome;
    if (outcome === undefined) return TIMEOUT;
    if ('error' in outcome) throw outcome.error;
    if (!outcome.result.done) this.#read();
    return outcome.result;
  }

  #read(): void {
    this.#outcome = undefined;
    this.#iterator.next().then(
      (result) => this.#settle({ result }),
      (error: unknown) => this.#settle({ error }),
    );
  }

  #settle(outcome: Outcome<T>): void {
    this.#outcome = outcome;
    this.#wake?.();
  }
}

/** One timer for a whole batch: started by the first wait, it wakes whoever waits when it fires. */
class Deadline {
  readonly #at: number;
  #timer: NodeJS.Timeout | undefined;
  #expired = false;
  #waiter: (() => void) | undefined;

  constructor(ms: number) {
    this.#at = Date.now() + ms;
  }

  wait(wake: () => void): void {
    if (this.#expired) return wake();
    this.#waiter = wake;
    this.#timer ??= setTimeout(
      () => {
        this.#expired = true;
        this.#waiter?.();
      },
      Math.max(0, this.#at - Date.now()),
    );
  }

  cancel(): void {
    clearTimeout(this.#timer);
  }
}
