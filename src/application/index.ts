import path from 'node:path';
import type { Logger } from 'pino';
import { petListProjection, type PetListState } from '../../projections/pet-list.ts';
import type { Config } from '../config.ts';
import type { Pet } from '../domain/pets.ts';
import type { EventStore } from '../eventstore/port.ts';
import { ProjectionRunner } from '../read-models/runner.ts';
import { snapshotDirectory } from '../read-models/snapshot-file.ts';
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
};

/** Starts the read model (snapshot, then catch-up with the store) and returns the application. */
export async function startApplication(options: ApplicationOptions) {
  const { store, config, logger } = options;
  const clock = options.clock ?? systemClock;
  const runner = new ProjectionRunner<PetListState>({
    store,
    projection: petListProjection,
    snapshots: snapshotDirectory(path.join(config.dataDir, 'snapshots')),
    snapshotEveryEvents: config.snapshotEveryEvents,
    logger,
  });
  await runner.start();
  const readModel = petReadModel(runner);
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
      return runner.onApplied((event) => {
        if (event.type === 'PetCreated') listener(readModel.getPet(event.data.id as number)!);
      });
    },
    /** Position up to which this process's read model is current. */
    checkpoint: () => runner.checkpoint,
    /** Stops following the store and saves a snapshot; the store stays open. */
    stop: () => runner.stop(),
  };
}
