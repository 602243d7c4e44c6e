import type { VersionedPet } from '../../domain/pets.ts';
import { validateStatus } from '../../domain/pet-rules.ts';
import { rfc3339TimeMs } from '../../shared/calendar-date.ts';
import { CatchingUpError, ValidationError } from '../../shared/errors.ts';
import type { EventStore } from '../ports/event-store.ts';
import type { AsOf, TemporalPetIndex } from '../ports/read-models.ts';
import type { ListPetsQuery, PetsPage } from './list-pets.ts';
import { nextAfter, validateAfter, validateLimit } from './paging.ts';
import { pastTheStore } from './positions.ts';
import { validatePetId } from './get-pet.ts';

/**
 * The catalogue as it was: from the temporal index (each version of each pet with the range in which
 * it held), never by folding the store again. A read first waits, up to a bound, for the index to
 * include everything the store held when it was asked, so that "as of a minute ago" is never
 * missing a change that was made before the request.
 */

const CATCH_UP_TIMEOUT_MS = 5_000;

/** `asOf`: a store position (decimal digits) or an RFC 3339 time (a leap second counts as the next). */
export function parseAsOf(text: string): AsOf {
  if (/^\d{1,40}$/.test(text)) return { position: BigInt(text) };
  const timeMs = rfc3339TimeMs(text);
  if (Number.isNaN(timeMs)) {
    throw new ValidationError(
      'asOf must be an RFC 3339 time (2026-11-16T09:00:00Z) or a store position.',
      'asOf',
    );
  }
  return { timeMs };
}

/** An `asOf` position past the store's last event (`head`) was not given by this store: 400, naming `field`. */
export function refusePastTheStore(at: AsOf, head: bigint | undefined, field: string): void {
  if ('position' in at && at.position > (head ?? 0n)) throw pastTheStore(field, at.position, head ?? 0n);
}

export function timeTravelQueries(deps: { readonly store: EventStore; readonly index: TemporalPetIndex }) {
  /**
   * Waits for the index to include every event stored so far. A position past the last of them was
   * not given by this store: 400, as for X-Min-Position, rather than an answer that later events
   * would change.
   */
  async function caughtUp(at: AsOf): Promise<void> {
    const head = await deps.store.headPosition();
    refusePastTheStore(at, head, 'asOf');
    if (head === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>(
      (resolve) => (timer = setTimeout(() => resolve('timed out'), CATCH_UP_TIMEOUT_MS)),
    );
    try {
      if ((await Promise.race([deps.index.waitFor(head), timedOut])) === 'timed out') {
        throw new CatchingUpError('The temporal index', 5);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /**
     * Pets as they were at `asOf`, paged like the live list, except that a page which read the index's
     * scan bound before it filled ends short, even empty, and still has a next page.
     */
    async listPetsAsOf(query: ListPetsQuery & { readonly asOf: string }): Promise<PetsPage> {
      const at = parseAsOf(query.asOf);
      const limit = validateLimit(query.limit);
      const status = query.status === undefined ? undefined : validateStatus(query.status);
      const after = validateAfter(query.after, 'a pet');
      await caughtUp(at);
      const { pets, hasMore, scannedTo } = deps.index.pageAsOf({
        at,
        limit,
        ...(status !== undefined && { status }),
        ...(after !== undefined && { after }),
      });
      const next = scannedTo ?? nextAfter(pets, hasMore);
      return next === undefined ? { pets } : { pets, nextAfter: next };
    },
    /** The pet as it was at `asOf`; undefined when it did not exist yet or was removed by then. */
    async getPetAsOf(petId: number | bigint, asOf: string): Promise<VersionedPet | undefined> {
      const id = validatePetId(petId);
      const at = parseAsOf(asOf);
      await caughtUp(at);
      return deps.index.petAsOf(id, at);
    },
  };
}
