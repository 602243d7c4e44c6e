import { acceptsSecret, type ApiKey } from '../domain/api-keys.ts';
import { hashApiKey, isWellFormedApiKey } from './api-key-secrets.ts';
import type { ApiKeyReadModel } from './ports/read-models.ts';

/** How long a request with an unknown key waits for this process to catch up with the store. */
export const CATCH_UP_WAIT_MS = 1000;

/** Secrets whose digest is remembered; past this many, the memory starts again from empty. */
const KNOWN_DIGESTS_MAX = 10_000;

/**
 * The API keys this process knows, kept current from the event store's subscription, so that a
 * key created, revoked, re-planned or banned by another process (the CLI, another server) is
 * honoured here within the store's subscription lag, without a restart.
 */
export class KeyRegistry {
  readonly #keys: ApiKeyReadModel;
  readonly #headPosition: (() => Promise<bigint | undefined>) | undefined;
  /**
   * The digest of each secret that named a known key, so that a client's every request after its
   * first costs a Map lookup instead of a SHA-256 (about 3% of a list request's CPU). Only
   * secrets that matched a digest are kept, so unknown secrets cannot fill it; the key itself is
   * looked up afresh every time, so revocations, rotations and bans apply as before.
   */
  #digests = new Map<string, string>();
  /** The head read in flight, and the one queued after it (see `#headSinceNow`). */
  #headRead: Promise<bigint | undefined> | undefined;
  #nextHeadRead: Promise<bigint | undefined> | undefined;

  /** `headPosition`: the store's, for `authenticateCaughtUp`; without it, that is `authenticate`. */
  constructor(keys: ApiKeyReadModel, headPosition?: () => Promise<bigint | undefined>) {
    this.#keys = keys;
    this.#headPosition = headPosition;
  }

  /**
   * The key this secret authenticates at `nowMs` (its current secret, or the one a rotation replaced
   * while its grace lasts), or undefined: one SHA-256 and one Map lookup. Expiry and bans are the
   * guard's to tell, since each gets an answer of its own. The lookup
   * compares digests, not secrets: how long it takes depends on the digest of what the caller sent,
   * which the caller cannot steer towards a stored one, so its timing tells nothing about stored
   * keys, and a constant-time comparison on top would add nothing.
   */
  authenticate(secret: string, nowMs: number): ApiKey | undefined {
    const known = this.#digests.get(secret);
    const hash = known ?? (isWellFormedApiKey(secret) ? hashApiKey(secret) : undefined);
    if (hash === undefined) return undefined;
    const key = this.#keys.bySecretHash(hash);
    if (key === undefined) return undefined;
    if (known === undefined) this.#remember(secret, hash);
    return acceptsSecret(key, hash, nowMs) ? key : undefined;
  }

  #remember(secret: string, hash: string): void {
    if (this.#digests.size >= KNOWN_DIGESTS_MAX) this.#digests = new Map();
    this.#digests.set(secret, hash);
  }

  /**
   * For a secret `authenticate` did not know: waits (up to `CATCH_UP_WAIT_MS`) until this registry
   * includes every event the store holds now, then looks again. A key just created by another
   * process (`petstore keys create`, then a request at once) is known from the first request, not
   * from whenever this process's subscription catches up. Costs one head-of-store read, and a wait
   * only while the registry is behind; a malformed secret costs nothing. A store that cannot tell
   * its head (an outage) leaves the answer as it was, as a wait that fails does: the secret is not
   * known here, a 401, not a 500 for every request with a stale key.
   */
  async authenticateCaughtUp(secret: string, nowMs: () => number): Promise<ApiKey | undefined> {
    if (this.#headPosition === undefined || !isWellFormedApiKey(secret)) return undefined;
    const head = await this.#headSinceNow(this.#headPosition);
    if (head === undefined) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CATCH_UP_WAIT_MS);
    });
    try {
      await Promise.race([this.#keys.waitFor(head).catch(() => undefined), gaveUp]);
    } finally {
      clearTimeout(timer);
    }
    return this.authenticate(secret, nowMs());
  }

  /**
   * The store's head, read after this call: requests with unknown keys share reads, so that a flood
   * of them (a stale key retried, a guessing client) costs the store at most two reads at a time,
   * not one each. A read already in flight may have begun before a key the caller holds was
   * created, so the caller joins the read that starts once it ends, as does everyone arriving
   * meanwhile. A store that cannot tell its head answers undefined.
   */
  #headSinceNow(headPosition: () => Promise<bigint | undefined>): Promise<bigint | undefined> {
    const start = (): Promise<bigint | undefined> => {
      const read = headPosition()
        .catch(() => undefined)
        .finally(() => {
          if (this.#headRead === read) this.#headRead = undefined;
        });
      this.#headRead = read;
      return read;
    };
    if (this.#headRead === undefined) return start();
    this.#nextHeadRead ??= this.#headRead.then(() => {
      this.#nextHeadRead = undefined;
      return start();
    });
    return this.#nextHeadRead;
  }

  /** The current state of a key (it may have been re-planned or banned since authentication). */
  get(keyId: string): ApiKey | undefined {
    return this.#keys.byId(keyId);
  }

  list(): ApiKey[] {
    return this.#keys.all().sort((a, b) => a.issuedAt.localeCompare(b.issuedAt));
  }

  /** Resolves once this registry includes every event up to `position`. */
  waitFor(position: bigint): Promise<void> {
    return this.#keys.waitFor(position);
  }
}
