import type { Logger } from 'pino';
import { apiKeysProjection, type ApiKeysState } from '../../projections/api-keys.ts';
import type { ReadModel } from '../read-models/read-model.ts';
import type { EventStore } from '../eventstore/port.ts';
import { ProjectionGroup } from '../read-models/runner.ts';
import { dataDirSnapshots } from '../read-models/snapshot-file.ts';
import type { ApiKey } from './api-keys.ts';
import { hashApiKey, isWellFormedApiKey } from './secrets.ts';

/**
 * The API keys this process knows, kept current from the event store's subscription, so that a
 * key created, revoked, re-planned or banned by another process (the CLI, another server) is
 * honoured here within the store's subscription lag, without a restart.
 */
export class KeyRegistry {
  readonly #group: ProjectionGroup;
  /** Set when this registry runs its own subscription; a shared group is its owner's to run. */
  readonly #ownGroup: ProjectionGroup | undefined;
  readonly #readModel: ReadModel<ApiKeysState>;

  constructor(options: {
    store: EventStore;
    logger: Logger;
    dataDir?: string;
    snapshotEveryEvents?: number;
    retryDelayMs?: number;
    /** The process's read models, fed by one subscription (src/server.ts). */
    readModels?: ProjectionGroup;
  }) {
    this.#ownGroup =
      options.readModels === undefined
        ? new ProjectionGroup({
            store: options.store,
            logger: options.logger,
            ...(options.dataDir === undefined
              ? {}
              : {
                  snapshots: dataDirSnapshots(options.dataDir),
                  snapshotEveryEvents: options.snapshotEveryEvents,
                }),
            ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
          })
        : undefined;
    this.#group = options.readModels ?? this.#ownGroup!;
    this.#readModel = this.#group.add(apiKeysProjection);
  }

  /** Catches up with the store, then follows it (nothing to do in a shared group). */
  async start(): Promise<void> {
    await this.#ownGroup?.start();
  }

  async stop(): Promise<void> {
    await this.#ownGroup?.stop();
  }

  /**
   * The active key with this secret, or undefined: one SHA-256 and one Map lookup. The lookup
   * compares digests, not secrets: how long it takes depends on the digest of what the caller sent,
   * which the caller cannot steer towards a stored one, so its timing tells nothing about stored
   * keys, and a constant-time comparison on top would add nothing.
   */
  authenticate(secret: string): ApiKey | undefined {
    if (!isWellFormedApiKey(secret)) return undefined;
    return this.#readModel.state.bySecretHash.get(hashApiKey(secret));
  }

  /** The current state of a key (it may have been re-planned or banned since authentication). */
  get(keyId: string): ApiKey | undefined {
    return this.#readModel.state.byId.get(keyId);
  }

  list(): ApiKey[] {
    return [...this.#readModel.state.byId.values()].sort((a, b) => a.issuedAt.localeCompare(b.issuedAt));
  }

  /** Resolves once this registry includes every event up to `position`. */
  waitFor(position: bigint): Promise<void> {
    return this.#group.waitFor(position);
  }
}
