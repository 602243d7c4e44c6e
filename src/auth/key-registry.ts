import path from 'node:path';
import type { Logger } from 'pino';
import { apiKeysProjection, type ApiKeysState } from '../../projections/api-keys.ts';
import type { EventStore } from '../eventstore/port.ts';
import { ProjectionRunner } from '../read-models/runner.ts';
import { snapshotDirectory } from '../read-models/snapshot-file.ts';
import type { ApiKey } from './api-keys.ts';
import { hashApiKeyBytes, isWellFormedApiKey, sameDigest } from './secrets.ts';

/**
 * The API keys this process knows, kept current from the event store's subscription, so that a
 * key created, revoked, re-planned or banned by another process (the CLI, another server) is
 * honoured here within the store's subscription lag, without a restart.
 */
export class KeyRegistry {
  readonly #runner: ProjectionRunner<ApiKeysState>;
  /** Decoded digests, so that the per-request comparison allocates nothing. */
  readonly #digests = new WeakMap<ApiKey, Buffer>();

  constructor(options: {
    store: EventStore;
    logger: Logger;
    dataDir?: string;
    snapshotEveryEvents?: number;
    retryDelayMs?: number;
  }) {
    this.#runner = new ProjectionRunner({
      store: options.store,
      projection: apiKeysProjection,
      logger: options.logger,
      ...(options.dataDir === undefined
        ? {}
        : {
            snapshots: snapshotDirectory(path.join(options.dataDir, 'snapshots')),
            snapshotEveryEvents: options.snapshotEveryEvents,
          }),
      ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
    });
  }

  /** Catches up with the store, then follows it. */
  start(): Promise<void> {
    return this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }

  /**
   * The active key with this secret, or undefined. One SHA-256 and one Map lookup: the Map is keyed
   * by a hash the caller cannot steer, so its timing says nothing about stored secrets; the final
   * comparison is constant-time all the same.
   */
  authenticate(secret: string): ApiKey | undefined {
    if (!isWellFormedApiKey(secret)) return undefined;
    const digest = hashApiKeyBytes(secret);
    const key = this.#runner.state.bySecretHash.get(digest.toString('base64url'));
    if (key === undefined) return undefined;
    return sameDigest(digest, this.#digestOf(key)) ? key : undefined;
  }

  /** The current state of a key (it may have been re-planned or banned since authentication). */
  get(keyId: string): ApiKey | undefined {
    return this.#runner.state.byId.get(keyId);
  }

  list(): ApiKey[] {
    return [...this.#runner.state.byId.values()].sort((a, b) => a.issuedAt.localeCompare(b.issuedAt));
  }

  /** Resolves once this registry includes every event up to `position`. */
  waitFor(position: bigint): Promise<void> {
    return this.#runner.waitFor(position);
  }

  #digestOf(key: ApiKey): Buffer {
    let digest = this.#digests.get(key);
    if (digest === undefined) {
      digest = Buffer.from(key.secretHash, 'base64url');
      this.#digests.set(key, digest);
    }
    return digest;
  }
}
