/**
 * Ids (of pets, of orders) come from blocks reserved in one shared stream per kind, with optimistic
 * concurrency: a process appends a block reservation expecting the stream's last revision, and
 * hands out the ids of its block from memory. Two processes that race for the same block see one
 * append fail and retry on the next block, so ids are unique across processes and restarts; ids of
 * a block a process did not use before it stopped are skipped, never reused.
 */

/** Ids are int64 on the wire, and never above 2^53−1 so that every JSON client reads them exactly. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** A kind of id: the stream its blocks are reserved in, and the type of the reservation event. */
export type IdSequence = { readonly stream: string; readonly eventType: string; readonly name: string };

export const PET_IDS: IdSequence = Object.freeze({
  stream: 'pet-ids',
  eventType: 'PetIdBlockReserved',
  name: 'pet',
});
export const ORDER_IDS: IdSequence = Object.freeze({
  stream: 'order-ids',
  eventType: 'OrderIdBlockReserved',
  name: 'order',
});

export type IdBlockReserved = {
  readonly type: string;
  readonly data: { readonly first: number; readonly last: number };
};

export type IdBlock = { readonly first: number; readonly last: number };

export class IdsExhaustedError extends Error {
  constructor(sequence: IdSequence) {
    super(`No ${sequence.name} ids are left below ${MAX_ID}.`);
    this.name = 'IdsExhaustedError';
  }
}

/** The block after `lastReserved` (0 when none was reserved yet), clipped to the largest safe id. */
export function decideReserveBlock(
  sequence: IdSequence,
  lastReserved: number,
  size: number,
): IdBlockReserved {
  if (lastReserved >= MAX_ID) throw new IdsExhaustedError(sequence);
  const first = lastReserved + 1;
  const last = Math.min(MAX_ID, lastReserved + size);
  return { type: sequence.eventType, data: { first, last } };
}

export function lastReservedId(
  sequence: IdSequence,
  events: readonly { type: string; data: Readonly<Record<string, unknown>> }[],
): number {
  let last = 0;
  for (const event of events) {
    if (event.type === sequence.eventType) last = Math.max(last, Number(event.data.last));
  }
  return last;
}
