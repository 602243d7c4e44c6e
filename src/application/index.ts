import type { Logger } from 'pino';
import { petListProjection } from '../../projections/pet-list.ts';
import type { Config } from '../config.ts';
import type { Pet } from '../domain/pets.ts';
import type { EventStore } from '../eventstore/port.ts';
import { ProjectionGroup } from '../read-models/runner.ts';
import { dataDirSnapshots } from '../read-models/snapshot-file.ts';
import { createPetCommand } from './commands/create-pet.ts';
import { type Clock, systemClock } from './context.ts';
import { PetIdAllocator } from './pet-id-allocator.ts';
import { getPetQuery } from './queries/get-pet.ts';
import { listPetsQuery } from './queries/list-pets.ts';
import { petReadModel } from './read-model.ts';

export type { RequestContext } from './context.ts';
export type { CreatePetOptions, CreatePetResult } from './commands/create-pet.ts';
export type { ListPetsQuery, PetsPage } from './queries/list-pets.ts';

/**
 * The one application layer: commands and queries that REST and GraphQL both call. Adapters
 * translate to and from these functions and add no rules of their own.
 */
export type Application = Awaited<ReturnType<typeof startApplication>>;

export type ApplicationOptions = {
  readonly store: EventStore;
  readonly config: Pick<Config, 'dataDir' | 'petIdBlockSize' | 'idempotencyKeyTtlMs' | 'snapshotEveryEvents'>;
  readonly logger: Logger;
  readonly clock?: Clock;
  /**
   * The read models of the whole process, fed by one subscription: the pet list joins it, and
   * whoever made the group starts and stops it. Without one, the application runs its own.
   */
  readonly readModels?: ProjectionGroup;
};

/**
 * The application over the pet-list read model. With its own group, that read model is caught up
 * (snapshot, then the store) before this resolves; with a shared one, once the group has started.
 */
export async function startApplication(options: ApplicationOptions) {
  const { store, config, logger } = options;
  const clock = options.clock ?? systemClock;
  const ownGroup =
    options.readModels === undefined
      ? new ProjectionGroup({
          store,
          snapshots: dataDirSnapshots(config.dataDir),
          snapshotEveryEvents: config.snapshotEveryEvents,
          logger,
        })
      : undefined;
  const group = options.readModels ?? ownGroup!;
  const petList = group.add(petListProjection);
  await ownGroup?.start();
  const readModel = petReadModel(petList, (position) => readYourWrites(group.waitFor(position), logger));
  const ids = new PetIdAllocator(store, config.petIdBlockSize, clock);

  return {
    createPet: createPetCommand({
      store,
      nextPetId: () => ids.nextId(),
      readModel,
      clock,
      idempotencyKeyTtlMs: config.idempotencyKeyTtlMs,
    }),
    listPets: listPetsQuery(readModel),
    getPet: getPetQuery(readModel),
    /** Calls `listener` with every pet created from now on, in store order. */
    onPetCreated(listener: (pet: Pet) => void): () => void {
      return petList.onApplied((event) => {
        if (event.type === 'PetCreated') listener(readModel.getPet(event.data.id as number)!);
      });
    },
    /** Position up to which this process's read model is current. */
    checkpoint: () => petList.checkpoint,
    /** Stops its own read models (a shared group is its owner's to stop); the store stays open. */
    stop: async () => {
      await ownGroup?.stop();
    },
  };
}

/**
 * How long a write waits for this process's read model before it answers anyway. The event is
 * durable either way; past this the client may not read its write at once (the read model is
 * stalled or stopping, which is logged), but it never waits forever for its 201.
 */
const READ_YOUR_WRITES_TIMEOUT_MS = 5_000;

async function readYourWrites(applied: Promise<void>, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), READ_YOUR_WRITES_TIMEOUT_MS);
  });
  try {
    if ((await Promise.race([applied, timedOut])) === 'timed out') {
      logger.warn('the read model did not reach a write in time: answering without read-your-writes');
    }
  } catch (error) {
    logger.warn({ err: error }, 'the read models stopped before a write reached them');
  } finally {
    clearTimeout(timer);
  }
}
