import { orderStreamName } from '../../domain/orders.ts';
import { petStreamName } from '../../domain/pets.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import type { EventStore, RecordedEvent } from '../ports/event-store.ts';
import type { ApiKeyReadModel } from '../ports/read-models.ts';
import { type AuditEvent, auditEvent } from './event-feed.ts';
import { validateLimit } from './paging.ts';
import { validateOrderId } from '../commands/close-order.ts';
import { validatePetId } from './get-pet.ts';

/**
 * Who changed what, when, from what: every event of one aggregate's stream, oldest first, with
 * where it stands in the store, who acted (the key's id and name, never a secret), the request that
 * did it, and the event's data (secret material left out). A removed pet keeps its history.
 */
export type HistoryEntry = Omit<AuditEvent, 'stream'>;

export type HistoryPage = {
  readonly events: readonly HistoryEntry[];
  /** Pass as `after` for the next page (a revision); absent on the last page. */
  readonly nextAfter?: number;
};

export type HistoryQuery = { readonly limit?: number; readonly after?: number };

export function historyQueries(deps: { readonly store: EventStore; readonly keys: ApiKeyReadModel }) {
  async function history(stream: string, what: string, query: HistoryQuery): Promise<HistoryPage> {
    const limit = validateLimit(query.limit);
    const after = validateRevisionCursor(query.after);
    const from = after === undefined ? 0n : BigInt(after) + 1n;
    const events = await deps.store.readStream(stream, { fromRevision: from, maxCount: limit + 1 });
    // Past a stream's last revision a page is empty; a stream that does not exist is a 404, cursor or not.
    if (events.length === 0 && (after === undefined || !(await exists(deps.store, stream)))) {
      throw new NotFoundError(`No ${what}.`);
    }
    const page = events.slice(0, limit).map((event) => entry(event, deps.keys));
    const last = page.at(-1);
    return events.length > limit && last !== undefined
      ? { events: page, nextAfter: last.revision }
      : { events: page };
  }
  return {
    petHistory: (petId: number | bigint, query: HistoryQuery = {}) => {
      const id = validatePetId(petId);
      return history(petStreamName(id), `pet has the id ${id}`, query);
    },
    /** Auditors (audit:read) see every order's history, whoever placed it. */
    orderHistory: (orderId: number | bigint, query: HistoryQuery = {}) => {
      const id = validateOrderId(orderId);
      return history(orderStreamName(id), `order has the id ${id}`, query);
    },
  };
}

/** An event as the feed shows it (`auditEvent`), without its stream: a history is of one stream. */
export function entry(event: RecordedEvent, keys: Pick<ApiKeyReadModel, 'byId'>): HistoryEntry {
  const { stream: _stream, ...rest } = auditEvent(event, keys);
  return rest;
}

async function exists(store: EventStore, stream: string): Promise<boolean> {
  return (await store.readStream(stream, { maxCount: 1 })).length > 0;
}

function validateRevisionCursor(after: number | undefined): number | undefined {
  if (after === undefined) return undefined;
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new ValidationError(
      `after must be a revision: an integer from 0 to ${Number.MAX_SAFE_INTEGER}.`,
      'after',
    );
  }
  return after;
}
