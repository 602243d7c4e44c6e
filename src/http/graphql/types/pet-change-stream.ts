import type { Application, PetChange } from '../../../application/index.ts';
import { liveStream, resumedStream } from '../live-stream.ts';
import type { StreamWatch } from '../../access-watch.ts';

export const RESUME_AFTER =
  'A store position (`extensions.storePosition` of an event received): deliver the events after it ' +
  'first, then live ones, with no gap and no repeat. Absent: from now on.';

/**
 * The pet changes a subscription delivers: live, or resumed after a store position, until the server
 * closes or `watch` ends them.
 */
export async function petChanges(
  application: Application,
  after: string | null | undefined,
  closing: AbortSignal,
  watch: StreamWatch,
  wanted: (change: PetChange) => boolean = () => true,
): Promise<AsyncIterableIterator<PetChange>> {
  const only = (emit: (change: PetChange) => void) => (change: PetChange) => {
    if (wanted(change)) emit(change);
  };
  if (after == null) return liveStream((emit) => application.onPetChange(only(emit)), closing, watch);
  const start = await application.resumePetChanges(after); // a bad position fails the request, not the stream
  return resumedStream(
    (emit) => {
      const { replayed, unsubscribe } = start(only(emit));
      return { replayed: filtered(replayed, wanted), unsubscribe };
    },
    closing,
    watch,
  );
}

async function* filtered(changes: AsyncIterable<PetChange>, wanted: (change: PetChange) => boolean) {
  for await (const change of changes) if (wanted(change)) yield change;
}
