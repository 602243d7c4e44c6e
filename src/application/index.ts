import type { Logger } from 'pino';
import type { Clock } from '../shared/context.ts';
import { createPetCommand } from './commands/create-pet.ts';
import { removePetCommand } from './commands/remove-pet.ts';
import { updatePetCommand } from './commands/update-pet.ts';
import { ORDER_IDS, PET_IDS } from '../domain/id-blocks.ts';
import { IdAllocator } from './id-allocator.ts';
import type { EventStore } from './ports/event-store.ts';
import type {
  ApiKeyReadModel,
  OrderReadModel,
  PetReadModel,
  ReadModelOperations,
  ReadModelProgress,
  TemporalPetIndex,
} from './ports/read-models.ts';
import { cancelOrderCommand, completeOrderCommand } from './commands/close-order.ts';
import { placeOrderCommand } from './commands/place-order.ts';
import { consistency } from './consistency.ts';
import { eventFeedQueries } from './queries/event-feed.ts';
import { orderChangeQueries } from './queries/order-changes.ts';
import { getOrderQuery, inventoryQuery, listOrdersQuery } from './queries/orders.ts';
import { historyQueries } from './queries/history.ts';
import { timeTravelQueries } from './queries/time-travel.ts';
import { getPetQuery } from './queries/get-pet.ts';
import { listPetsQuery } from './queries/list-pets.ts';
import { petChangeQueries } from './queries/pet-changes.ts';
import { Turns } from './turns.ts';

export type { RequestContext } from '../shared/context.ts';
export type { CreatePetOptions, CreatePetResult } from './commands/create-pet.ts';
export type { ChangeOptions, PetChangeResult } from './commands/pet-stream.ts';
export type { RemovePetOptions } from './commands/remove-pet.ts';
export type { PetChange } from './ports/read-models.ts';
export type { ListPetsQuery, PetsPage } from './queries/list-pets.ts';
export type { ListOrdersQuery, OrdersPage } from './queries/orders.ts';
export type { PlaceOrderResult } from './commands/place-order.ts';
export type { HistoryEntry, HistoryPage, HistoryQuery } from './queries/history.ts';
export type { AuditEvent, EventFeedPage, EventFeedQuery, FeedCheckpoint } from './queries/event-feed.ts';
export { isCheckpoint } from './queries/event-feed.ts';
export type { ResumedPetChanges } from './queries/pet-changes.ts';
export type { OrderChange } from './queries/order-changes.ts';
export type { PayForReads } from './queries/replay-cost.ts';
export type { SentStart } from './queries/positions.ts';
export { parsePosition } from './queries/positions.ts';
export type { Comparison, ProjectionStatus, RebuildStatus, VerifyReport } from './ports/read-models.ts';

/**
 * The one application layer: commands and queries that REST and GraphQL both call. Adapters
 * translate to and from these functions and add no rules of their own.
 */
export type Application = ReturnType<typeof createApplication>;

export type ApplicationDependencies = {
  readonly store: EventStore;
  readonly pets: PetReadModel;
  readonly orders: OrderReadModel;
  readonly keys: ApiKeyReadModel;
  readonly temporal: TemporalPetIndex;
  /** Where this process's read models stand (read-your-writes, X-Min-Position). */
  readonly progress: ReadModelProgress;
  /** Status, rebuilds and verification of this process's read models (operators, scope admin). */
  readonly readModels: ReadModelOperations;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: {
    /** How many pet (and order) ids this process reserves from the shared id stream at a time. */
    readonly petIdBlockSize: number;
    readonly idempotencyKeyTtlMs: number;
    /** How long a read waits for the position of X-Min-Position before its 503. */
    readonly minPositionWaitMs: number;
  };
};

/** The application over its ports: the event store and this process's read models. */
export function createApplication(deps: ApplicationDependencies) {
  const { store, clock, logger, config } = deps;
  const pets: PetReadModel = {
    ...deps.pets,
    waitFor: (position) => readYourWrites(deps.pets.waitFor(position), logger),
  };
  const ids = new IdAllocator(store, PET_IDS, config.petIdBlockSize, clock);
  const orderIds = new IdAllocator(store, ORDER_IDS, config.petIdBlockSize, clock);
  const orders: OrderReadModel = {
    ...deps.orders,
    waitFor: (position) => readYourWrites(deps.orders.waitFor(position), logger),
  };
  // Changes to one pet (its own, and its orders') take turns in this process, rather than race.
  const petTurns = new Turns<number>();
  const orderStreams = { store, orders, pets, clock, petTurns };
  const positions = consistency({
    store,
    progress: deps.progress,
    minPositionWaitMs: config.minPositionWaitMs,
  });
  const createPet = createPetCommand({
    store,
    nextPetId: () => ids.nextId(),
    readModel: pets,
    clock,
    idempotencyKeyTtlMs: config.idempotencyKeyTtlMs,
  });
  const updatePet = updatePetCommand({ store, readModel: pets, clock, petTurns });
  const removePet = removePetCommand({ store, readModel: pets, clock, petTurns });
  const placeOrder = placeOrderCommand({
    ...orderStreams,
    nextOrderId: () => orderIds.nextId(),
    idempotencyKeyTtlMs: config.idempotencyKeyTtlMs,
  });
  const completeOrder = completeOrderCommand(orderStreams);
  const cancelOrder = cancelOrderCommand(orderStreams);
  return {
    // Every write tells the request the store position it reached (see consistency.ts).
    createPet: (...args: Parameters<typeof createPet>) => positions.withPosition(args[1], createPet(...args)),
    updatePet: (...args: Parameters<typeof updatePet>) => positions.withPosition(args[2], updatePet(...args)),
    removePet: (...args: Parameters<typeof removePet>) => positions.withPosition(args[1], removePet(...args)),
    listPets: listPetsQuery(pets),
    getPet: getPetQuery(pets),
    ...petChangeQueries({ store, pets, progress: deps.progress }),
    placeOrder: (...args: Parameters<typeof placeOrder>) =>
      positions.withPosition(args[1], placeOrder(...args)),
    completeOrder: (...args: Parameters<typeof completeOrder>) =>
      positions.withPosition(args[1], completeOrder(...args)),
    cancelOrder: (...args: Parameters<typeof cancelOrder>) =>
      positions.withPosition(args[1], cancelOrder(...args)),
    listOrders: listOrdersQuery(orders),
    getOrder: getOrderQuery(orders),
    inventory: inventoryQuery(pets),
    ...historyQueries({ store, keys: deps.keys }),
    ...timeTravelQueries({ store, index: deps.temporal }),
    ...orderChangeQueries({ store, orders, progress: deps.progress }),
    ...eventFeedQueries({ store, keys: deps.keys }),
    /** Answers once this process's read models include the position (X-Min-Position), or fails within the bound. */
    awaitPosition: positions.awaitPosition,
    readModels: deps.readModels,
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
