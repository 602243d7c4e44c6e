/**
 * Client addresses this process refused (429) for requests without a valid key, until their window
 * ends. While refused, an address's requests with a key are refused too, before the key is looked
 * at, so a right guess is indistinguishable from a wrong one. Checking is free while it is empty.
 */
export class RefusedAddresses {
  readonly #until = new Map<string, number>();

  /** False while nothing is refused, so callers skip computing the address. */
  get active(): boolean {
    return this.#until.size > 0;
  }

  add(address: string, untilMs: number, nowMs: number): void {
    if (this.#until.size >= 10_000) this.#sweep(nowMs);
    this.#until.set(address, untilMs);
  }

  has(address: string, nowMs: number): boolean {
    const until = this.#until.get(address);
    if (until === undefined) return false;
    if (until > nowMs) return true;
    this.#until.delete(address);
    return false;
  }

  #sweep(nowMs: number): void {
    for (const [address, until] of this.#until) if (until <= nowMs) this.#until.delete(address);
  }
}
