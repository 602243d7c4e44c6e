/**
 * Work that takes turns by key within this process: each piece starts once the one before it with
 * the same key has settled. Changes to one pet take turns so, its orders' decisions included: sent
 * at once, n changes would all decide on the same revision and append expecting it, one would win
 * each commit and the rest decide again, so that the last needed n attempts, past the bound a
 * change makes (a 500). Taking turns, each decides on the pet the one before it left, and only
 * another process's change can still come between a decision and its append.
 */
export class Turns<K> {
  readonly #last = new Map<K, Promise<unknown>>();

  take<T>(key: K, work: () => Promise<T>): Promise<T> {
    const before = this.#last.get(key);
    const result = before === undefined ? work() : before.then(work, work);
    const settled = result.then(nothing, nothing);
    this.#last.set(key, settled);
    void settled.then(() => {
      if (this.#last.get(key) === settled) this.#last.delete(key);
    });
    return result;
  }
}

function nothing(): void {}
