import type { Application, PetChange } from '../../../application/index.ts';
import { liveStream, resumedStream } from '../live-stream.ts';

export const RESUME_AFTER =
  'A store position (`extensions.storePosition` of an event received): deliver the events after it ' +
  'first, then live ones, with no gap and no repeat. Absent: from now on.';

/** The pet changes a subscription delivers: live, or resumed after a store position. */
export async function petChanges(
  application: Application,
  after: string | null | undefined,
  closing: AbortSignal,
  wanted: (change: PetChange) => boolean = () => true,
): Promise<AsyncIterableIterator<PetChange>> {
  const only = (emit: (change: PetChange) => void) => (change: PetChange) => {
    if (wanted(change)) emit(change);
  };
  if (after == null) return liveStream((emit) => application.onPetChange(only(emit)), closing);
  const start = await application.resumePetChanges(after); // a bad position fails the request, not the stream
  return resumedStream((emit) => {
    const { replayed, unsubscribe } = start(only(emit));
    return { replayed: filtered(replayed, wanted), unsubscribe };
  }, closing);
}

async function* filtered(changes: AsyncIterable<PetChange>, wanted: (change: PetChange) => boolean) {
  for await (const change of changes) if (wanted(change)) yield change;
}
