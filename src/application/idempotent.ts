import {
  claimIdempotencyKey,
  type ClaimedIdField,
  decideIdempotencyClaim,
  type IdempotencyClaim,
  idempotencyStreamName,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '../domain/idempotency.ts';
import { type Clock, clockAt, type RequestContext } from '../shared/context.ts';
import { assertUnreachable, IdempotencyKeyReusedError, ValidationError } from '../shared/errors.ts';
import { newEventMetadata } from '../shared/event-metadata.ts';
import { type EventStore, type StreamAppend, WrongExpectedRevisionError } from './ports/event-store.ts';

/**
 * A create made safe to retry with an `Idempotency-Key` (see domain/idempotency.ts): the first
 * request claims the key with the id it will create; a retry with the same request replays the
 * same creation (`ensureCreated` answers what the first one answered, creating it if the first
 * died before it could); the same key with another request is a 422.
 */
export type IdempotentCreate<R> = {
  readonly field: ClaimedIdField;
  /** A hash of what the request asks for (see `requestHash`). */
  readonly requestHash: string;
  readonly nextId: () => Promise<number>;
  readonly ensureCreated: (id: number) => Promise<R>;
  /**
   * For a creation that can be refused (an order: its pet may not be available): creates it with
   * the key's claim in the same atomic append, so that a refusal claims nothing and a claim always
   * names something created. It takes an id (from `nextId`) only once it is not refused, and appends
   * `claimFor(thatId, decidedAt)` with it: the claim is made at the creation's time, as one decision.
   * Absent (a pet, whose creation cannot be refused): the claim is appended first, then
   * `ensureCreated` creates.
   */
  readonly createWithClaim?: (claimFor: (id: number, at: Date) => StreamAppend) => Promise<R>;
};

export type IdempotencyDependencies = {
  readonly store: EventStore;
  readonly clock: Clock;
  readonly idempotencyKeyTtlMs: number;
};

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]+$/;

export async function createIdempotently<R>(
  deps: IdempotencyDependencies,
  context: RequestContext,
  idempotencyKey: string,
  create: IdempotentCreate<R>,
): Promise<{ readonly result: R; readonly replayed: boolean }> {
  const stream = idempotencyStreamName(
    context.apiKeyId ?? 'anonymous',
    validateIdempotencyKey(idempotencyKey),
  );
  for (;;) {
    const last = (await deps.store.readStream(stream)).at(-1);
    const claim = last?.data as IdempotencyClaim | undefined;
    const now = deps.clock.now(); // the claim's expiry and its event's time: one reading
    const decision = decideIdempotencyClaim(claim, create.field, create.requestHash, now);
    switch (decision.kind) {
      case 'key_reused':
        throw new IdempotencyKeyReusedError();
      case 'replay':
        return { result: await create.ensureCreated(decision.id), replayed: true };
      case 'claimable': {
        const claimFor = (id: number, at: Date = now): StreamAppend => ({
          streamName: stream,
          events: [
            {
              ...claimIdempotencyKey(create.field, id, create.requestHash, at, deps.idempotencyKeyTtlMs),
              metadata: newEventMetadata(clockAt(at), context),
            },
          ],
          expectedRevision: last?.revision ?? 'no_stream',
        });
        if (create.createWithClaim !== undefined) {
          try {
            return { result: await create.createWithClaim(claimFor), replayed: false };
          } catch (error) {
            // A concurrent request with this key came first (its order took the pet): it answers.
            if ((await deps.store.readStream(stream)).at(-1)?.revision !== last?.revision) continue;
            throw error;
          }
        }
        const id = await create.nextId();
        const claim = claimFor(id);
        try {
          await deps.store.appendToStream(claim.streamName, claim.events, {
            expectedRevision: claim.expectedRevision,
          });
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError) continue; // a concurrent request claimed it first
          throw error;
        }
        return { result: await create.ensureCreated(id), replayed: false };
      }
      default:
        return assertUnreachable(decision);
    }
  }
}

function validateIdempotencyKey(key: string): string {
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ValidationError(
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters.`,
      'Idempotency-Key',
    );
  }
  return key;
}
