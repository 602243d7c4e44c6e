import { MAX_PET_ID } from './pets.ts';

/**
 * Pet ids come from blocks reserved in one shared stream with optimistic concurrency: a process
 * appends `PetIdBlockReserved` expecting the stream's last revision, and hands out the ids of its
 * block from memory. Two processes that race for the same block see one append fail and retry on
 * the next block, so ids are unique across processes and restarts; ids of a block a process did
 * not use before it stopped are skipped, never reused.
 */

export const PET_IDS_STREAM = 'pet-ids';

export type PetIdBlockReserved = {
  readonly type: 'PetIdBlockReserved';
  readonly data: { readonly first: number; readonly last: number };
};

export type PetIdBlock = { readonly first: number; readonly last: number };

export class PetIdsExhaustedError extends Error {
  constructor() {
    super(`No pet ids are left below ${MAX_PET_ID}.`);
    this.name = 'PetIdsExhaustedError';
  }
}

/** The block after `lastReserved` (0 when none was reserved yet), clipped to the largest safe id. */
export function decideReserveBlock(lastReserved: number, size: number): PetIdBlockReserved {
  if (lastReserved >= MAX_PET_ID) throw new PetIdsExhaustedError();
  const first = lastReserved + 1;
  const last = Math.min(MAX_PET_ID, lastReserved + size);
  return { type: 'PetIdBlockReserved', data: { first, last } };
}

export function lastReservedId(
  events: readonly { type: string; data: Readonly<Record<string, unknown>> }[],
): number {
  let last = 0;
  for (const event of events) {
    if (event.type === 'PetIdBlockReserved') last = Math.max(last, Number(event.data.last));
  }
  return last;
}
