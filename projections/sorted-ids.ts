/**
 * Ascending ids, the index of every list read model: a page is a binary search plus a slice.
 *
 * Kept in blocks of at most BLOCK_IDS, so that an id that changes lists in the middle of a long
 * one (a pet ordered, then let go) moves at most a block's worth of ids in memory, not half the
 * list: in one array of 30k ids those moves took a sixth of an order's CPU.
 */
const BLOCK_IDS = 1024;

export class SortedIds implements Iterable<number> {
  /** Non-empty ascending blocks, each after the one before. */
  readonly #blocks: number[][] = [];
  #length = 0;

  /** From ids already in ascending order. */
  static fromAscending(ids: readonly number[]): SortedIds {
    const sorted = new SortedIds();
    for (let start = 0; start < ids.length; start += BLOCK_IDS) {
      sorted.#blocks.push(ids.slice(start, start + BLOCK_IDS));
    }
    sorted.#length = ids.length;
    return sorted;
  }

  get length(): number {
    return this.#length;
  }

  /** Ids mostly arrive in ascending order (one process, one block), so this is almost always a push. */
  insert(id: number): void {
    this.#length += 1;
    const last = this.#blocks[this.#blocks.length - 1];
    if (last === undefined || last[last.length - 1]! < id) {
      if (last !== undefined && last.length < BLOCK_IDS) last.push(id);
      else this.#blocks.push([id]);
      return;
    }
    const at = this.#blockOf(id);
    const block = this.#blocks[at]!;
    block.splice(firstIndexAfter(block, id - 1), 0, id);
    if (block.length > BLOCK_IDS) this.#blocks.splice(at + 1, 0, block.splice(BLOCK_IDS / 2));
  }

  remove(id: number): void {
    const at = this.#blockOf(id);
    const block = this.#blocks[at];
    if (block === undefined) return;
    const index = firstIndexAfter(block, id - 1);
    if (block[index] !== id) return;
    this.#length -= 1;
    if (block.length === 1) this.#blocks.splice(at, 1);
    else block.splice(index, 1);
  }

  /** Ids greater than `after` (all when undefined), at most `limit`; `hasMore` tells whether more follow. */
  page(after: number | undefined, limit: number): { ids: number[]; hasMore: boolean } {
    const blocks = this.#blocks;
    let at = after === undefined ? 0 : this.#blockOf(after + 1);
    let index = after === undefined || at === blocks.length ? 0 : firstIndexAfter(blocks[at]!, after);
    const ids: number[] = [];
    while (at < blocks.length && ids.length < limit) {
      const block = blocks[at]!;
      const end = Math.min(block.length, index + limit - ids.length);
      for (let i = index; i < end; i++) ids.push(block[i]!);
      if (end < block.length) return { ids, hasMore: true };
      at += 1;
      index = 0;
    }
    return { ids, hasMore: at < blocks.length };
  }

  *[Symbol.iterator](): Iterator<number> {
    for (const block of this.#blocks) yield* block;
  }

  /** Index of the first block whose last id is `id` or more; the number of blocks when none is. */
  #blockOf(id: number): number {
    let low = 0;
    let high = this.#blocks.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const block = this.#blocks[mid]!;
      if (block[block.length - 1]! < id) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** Index of the first id greater than `after`, by binary search. */
function firstIndexAfter(ids: readonly number[], after: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ids[mid]! <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
