/** Ascending arrays of ids, the index of every list read model: a page is a binary search plus a slice. */

/** Ids mostly arrive in ascending order (one process, one block), so this is almost always a push. */
export function insertSorted(ids: number[], id: number): void {
  if (ids.length === 0 || ids[ids.length - 1]! < id) {
    ids.push(id);
    return;
  }
  ids.splice(firstIndexAfter(ids, id - 1), 0, id);
}

export function removeSorted(ids: number[], id: number): void {
  const index = firstIndexAfter(ids, id - 1);
  if (ids[index] === id) ids.splice(index, 1);
}

/** Index of the first id greater than `after`, by binary search. */
export function firstIndexAfter(ids: readonly number[], after: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ids[mid]! <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
