import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Logger } from 'pino';
import {
  type EventStore,
  type RecordedEvent,
  UnreadableEventError,
} from '../application/ports/event-store.ts';
import { AS_OF_SCAN_LIMIT, type AsOf, type TemporalPetIndex } from '../application/ports/read-models.ts';
import { PET_EVENT_TYPES, type PetStatus, type VersionedPet } from '../domain/pets.ts';
import { openWalDatabase } from '../shared/sqlite-file.ts';
import { eventIdAt } from './read-model.ts';
import { RetriedFailureLog } from './retried-failure-log.ts';

/**
 * The temporal index of pets: every version of every pet, with the range of store positions (and
 * of times) in which it held. An as-of read is an indexed lookup, never a fold of the store: its
 * cost depends on the pets it returns, not on how many events the store holds, and a page reads at
 * most AS_OF_SCAN_LIMIT versions however few pets match.
 *
 * It lives on disk, in its own SQLite file beside the snapshots (one row per version: about 80
 * bytes with its indexes, so a million pets changed three times each take ~300 MB of disk and no
 * heap), and follows the store with its own subscription, in small transactions that leave the
 * event loop free between them. Each transaction re-reads the checkpoint it advances, so several
 * processes sharing a data directory share one index and never apply an event twice. Delete the
 * file to rebuild it. Like a snapshot, it records the position and id of the last event it applied:
 * an index whose store does not hold that event (restored from a backup, or another store) is
 * emptied and rebuilt, since it would answer pets the store never had and pass over its events.
 */

const FORMAT = 1;
const BATCH = 500;
/**
 * After a batch of several events but fewer than BATCH, how long the index lets events gather
 * before it reads and applies the next ones, unless an as-of read is waiting for it. Under a steady
 * stream of writes each commit of the store would otherwise cost this index a read of its own and
 * a transaction of its own, with the checkpoint read before and after (the index took 10-17% of a
 * durable write's CPU on the benchmark).
 */
const GATHER_MS = 20;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS pet_versions (
    pet_id      INTEGER NOT NULL,
    from_pos    BLOB    NOT NULL,
    to_pos      BLOB,
    from_time   INTEGER NOT NULL,
    to_time     INTEGER,
    version     INTEGER NOT NULL,
    removed     INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    category_id INTEGER NOT NULL,
    status      TEXT,
    PRIMARY KEY (pet_id, from_pos)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS pet_versions_by_status ON pet_versions (status, pet_id, from_pos);
  -- Each pet's version that holds now, which every event of the pet closes: without it, closing it
  -- read all the pet's versions, and a pet with n versions cost n²/2 reads to index.
  CREATE INDEX IF NOT EXISTS pet_versions_open ON pet_versions (pet_id) WHERE to_pos IS NULL;
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

/** The checkpoint, and the position and id of an event at or before it that this index applied. */
type RecordedCheckpoint = {
  readonly position?: bigint;
  readonly proof?: { readonly position: bigint; readonly eventId: string };
};

type Row = {
  pet_id: number;
  version: number;
  removed: number;
  name: string;
  category_id: number;
  status: string | null;
};

/** The version a new one replaced, with the time it began. */
type ClosedRow = Row & { from_time: number };

/** A position as 16 big-endian bytes: byte order is number order, for KurrentDB's 128-bit ones too. */
export function positionKey(position: bigint): Uint8Array {
  const key = new Uint8Array(16);
  const view = new DataView(key.buffer);
  view.setBigUint64(0, BigInt.asUintN(64, position >> 64n));
  view.setBigUint64(8, BigInt.asUintN(64, position));
  return key;
}

export class SqliteTemporalIndex implements TemporalPetIndex {
  readonly #db: DatabaseSync;
  readonly #store: EventStore;
  readonly #statements: ReturnType<typeof prepare>;
  #checkpoint: bigint | undefined;
  #waiters: { position: bigint; resolve: () => void; reject: (error: Error) => void }[] = [];
  readonly #logger: Logger;
  readonly #failures: RetriedFailureLog;
  #stopped = false;
  #following: Promise<void> | undefined;
  #subscription: ReturnType<EventStore['subscribeToAll']> | undefined;
  /** Ends the current pause between batches at once; undefined when not pausing. */
  #endPause: (() => void) | undefined;
  /** Whether the checkpoint is known to be one of this store's: until then no reader is answered. */
  #proven = false;

  constructor(file: string, store: EventStore, logger: Logger) {
    // Rebuildable from the store: no fsync per batch. Several worker processes may open it at once.
    this.#db = openWalDatabase(file, { synchronous: 'NORMAL', schema: SCHEMA });
    try {
      this.#statements = prepare(this.#db);
      this.#checkpoint = this.#readCheckpoint();
    } catch (error) {
      this.#db.close(); // a damaged file is not left open: it may be set aside (temporal-index-file.ts)
      throw error;
    }
    this.#store = store;
    this.#logger = logger;
    this.#failures = new RetriedFailureLog(logger, 'temporal index: subscription failed, resubscribing');
  }

  /** Follows the store from the index's checkpoint, in the background. */
  start(): void {
    this.#following ??= this.#follow();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#endPause?.();
    await this.#subscription?.close();
    await this.#following;
    for (const waiter of this.#waiters) waiter.resolve();
    this.#waiters = [];
    this.#db.close();
  }

  get checkpoint(): bigint | undefined {
    return this.#checkpoint;
  }

  waitFor(position: bigint): Promise<void> {
    if (this.#proven && this.#checkpoint !== undefined && this.#checkpoint >= position)
      return Promise.resolve();
    const caughtUp = new Promise<void>((resolve, reject) =>
      this.#waiters.push({ position, resolve, reject }),
    );
    this.#endPause?.(); // a reader waits: apply what has gathered now
    return caughtUp;
  }

  petAsOf(id: number, at: AsOf): VersionedPet | undefined {
    const row = (
      'position' in at
        ? this.#statements.petAtPosition.get(id, positionKey(at.position))
        : this.#statements.petAtTime.get(id, at.timeMs)
    ) as Row | undefined;
    return row === undefined || row.removed === 1 ? undefined : toPet(row);
  }

  pageAsOf(query: {
    readonly at: AsOf;
    readonly status?: PetStatus;
    readonly after?: number;
    readonly limit: number;
  }): { pets: VersionedPet[]; hasMore: boolean; scannedTo?: number } {
    const after = query.after ?? 0;
    const byPosition = 'position' in query.at;
    const bound = byPosition ? positionKey(query.at.position) : query.at.timeMs;
    const filter = query.status === undefined ? 'all' : 'status';
    const among = query.status === undefined ? [] : [query.status];
    // The pet whose versions (of the status) run past the scan bound, if any: the page reads no further.
    const edge = (
      this.#statements.scanEdge[filter].get(...among, after, AS_OF_SCAN_LIMIT - 1) as
        { pet_id: number } | undefined
    )?.pet_id;
    if (
      edge !== undefined &&
      edge === (this.#statements.scanEdge[filter].get(...among, after, 0) as { pet_id: number }).pet_id
    ) {
      // One pet holds more versions than the bound: read it alone, by its own indexed lookup.
      const pet = this.petAsOf(edge, query.at);
      const matches = pet !== undefined && (query.status === undefined || pet.status === query.status);
      return { pets: matches ? [pet] : [], hasMore: true, scannedTo: edge };
    }
    const last = edge === undefined ? Number.MAX_SAFE_INTEGER : edge - 1;
    const statement = this.#statements.page[byPosition ? 'position' : 'time'][filter];
    const rows = statement.all(...among, after, last, bound, bound, query.limit + 1) as Row[];
    const pets = rows.slice(0, query.limit).map(toPet);
    if (rows.length > query.limit) return { pets, hasMore: true };
    return edge === undefined ? { pets, hasMore: false } : { pets, hasMore: true, scannedTo: last };
  }

  async #follow(): Promise<void> {
    while (!this.#stopped) {
      try {
        if (!this.#proven) await this.#proveCheckpoint();
        if (this.#stopped) return; // a reader the proof woke may have stopped the index meanwhile
        this.#subscription = this.#store.subscribeToAll(
          this.#checkpoint === undefined ? {} : { after: this.#checkpoint },
        );
        for await (const batch of this.#subscription.batches()) {
          for (let i = 0; i < batch.length; i += BATCH) {
            this.#apply(batch.slice(i, i + BATCH));
            this.#failures.succeeded();
            await new Promise((resolve) => setImmediate(resolve)); // let requests in between
          }
          // Only a store that hands over, in one batch, what gathered since its last read gains from
          // the pause (the embedded one); one that delivers event by event (KurrentDB's) would only
          // be slowed down, and so would a single write on a quiet server.
          if (batch.length > 1 && batch.length < BATCH) await this.#pause();
        }
      } catch (error) {
        if (this.#stopped) return;
        this.#failed(error);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /**
   * Logs a failure of the subscription (see RetriedFailureLog). An unreadable event stays so until
   * the store is restored: whoever waits for the index to pass it is told why rather than kept
   * waiting.
   */
  #failed(error: unknown): void {
    this.#failures.failed(error);
    if (!(error instanceof UnreadableEventError)) return;
    const blocked = this.#waiters.filter((waiter) => waiter.position >= error.position);
    this.#waiters = this.#waiters.filter((waiter) => waiter.position < error.position);
    for (const waiter of blocked) waiter.reject(error);
  }

  /**
   * Empties the index, in one transaction, when the store is not the one it followed: the store
   * holds no event at the index's checkpoint, or another event than the one the index recorded as
   * its proof (the position and id of the last event of a batch it applied). The proof may lie
   * before the checkpoint: an earlier release advances the checkpoint without recording one.
   */
  async #proveCheckpoint(): Promise<void> {
    const recorded = this.#recordedCheckpoint();
    if (recorded.position !== undefined) {
      const idAt = eventIdAt(this.#store);
      const { proof } = recorded;
      if ((await idAt(recorded.position)) === undefined)
        this.#reset(recorded, `no event ${recorded.position}`);
      else if (proof !== undefined && (await idAt(proof.position)) !== proof.eventId)
        this.#reset(recorded, `another event ${proof.position}`);
    }
    this.#proven = true;
    this.#wake();
  }

  #reset(recorded: RecordedCheckpoint, found: string): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const now = this.#recordedCheckpoint();
      // Another process sharing the index may have reset it, and followed the store, meanwhile.
      if (now.position === recorded.position && now.proof?.eventId === recorded.proof?.eventId) {
        this.#db.exec('DELETE FROM pet_versions');
        this.#db.exec("DELETE FROM meta WHERE key IN ('checkpoint', 'proof')");
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      // A failed COMMIT (a full disk) may have rolled back already: a ROLLBACK then would hide why.
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
    this.#checkpoint = this.#readCheckpoint();
    this.#logger.warn(
      `temporal index: not made from this event store (${found} there): rebuilding it from position 0`,
    );
  }

  #recordedCheckpoint(): RecordedCheckpoint {
    const proof = this.#statements.getMeta.get('proof') as { value: string } | undefined;
    const position = this.#readCheckpoint();
    const parsed =
      proof === undefined ? undefined : (JSON.parse(proof.value) as { position: string; eventId: string });
    return {
      ...(position !== undefined && { position }),
      ...(parsed !== undefined && { proof: { position: BigInt(parsed.position), eventId: parsed.eventId } }),
    };
  }

  /** Lets events gather for GATHER_MS, or until a reader waits or the index stops. */
  #pause(): Promise<void> {
    if (this.#stopped || this.#waiters.length > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#endPause?.(), GATHER_MS);
      this.#endPause = () => {
        clearTimeout(timer);
        this.#endPause = undefined;
        resolve();
      };
    });
  }

  /** One transaction: the events this index does not hold yet (another process may have added some). */
  #apply(events: readonly RecordedEvent[]): void {
    const last = events[events.length - 1]!;
    let committed: bigint;
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const checkpoint = this.#readCheckpoint();
      for (const event of events) {
        if (checkpoint !== undefined && event.position <= checkpoint) continue;
        if (PET_EVENT_TYPES.has(event.type)) this.#applyPetEvent(event);
      }
      committed = checkpoint === undefined || last.position > checkpoint ? last.position : checkpoint;
      if (committed !== checkpoint) {
        this.#statements.setMeta.run('checkpoint', committed.toString());
        const proof = { position: committed.toString(), eventId: last.metadata.eventId };
        this.#statements.setMeta.run('proof', JSON.stringify(proof));
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      // A failed COMMIT (a full disk) may have rolled back already: a ROLLBACK then would hide why.
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
    this.#checkpoint = committed;
    this.#wake();
  }

  #applyPetEvent(event: RecordedEvent): void {
    const data = event.data as Record<string, unknown>;
    const id = data.id as number;
    const at = positionKey(event.position);
    const timeMs = Date.parse(event.metadata.occurredAt);
    const version = Number(event.revision);
    if (event.type === 'PetCreated') {
      this.#statements.insert.run(
        id,
        at,
        timeMs,
        version,
        0,
        data.name as string,
        data.categoryId as number,
        (data.status as string | undefined) ?? null,
      );
      return;
    }
    // Closes the pet's current version unless it is this one or a later one (a replay).
    const current = this.#statements.close.get(at, timeMs, id, version) as ClosedRow | undefined;
    if (current === undefined) return;
    // A clock stepped back (or another process's, behind): no earlier version holds past this time,
    // so that a page as of a time lists the pet as `petAsOf` answers it (the last version recorded
    // at or before the time), once, rather than also as a version this one replaced. Versions end
    // no later than the current one began, so only a time before that can end any earlier.
    if (timeMs < current.from_time) this.#statements.endEarlierVersions.run(timeMs, id, timeMs);
    const next = { ...current, version };
    if (event.type === 'PetRenamed') next.name = data.name as string;
    if (event.type === 'PetRecategorised') next.category_id = data.categoryId as number;
    if (event.type === 'PetStatusChanged') next.status = data.status as string;
    if (event.type === 'PetRemoved') next.removed = 1;
    this.#statements.insert.run(
      id,
      at,
      timeMs,
      version,
      next.removed,
      next.name,
      next.category_id,
      next.status,
    );
  }

  #readCheckpoint(): bigint | undefined {
    const format = this.#statements.getMeta.get('format') as { value: string } | undefined;
    if (format === undefined) this.#statements.setMeta.run('format', String(FORMAT));
    else if (format.value !== String(FORMAT))
      // The caller names the file and says what to do (src/cli/store.ts).
      throw new Error(`it holds the temporal index format ${format.value}, not ${FORMAT}`);
    const row = this.#statements.getMeta.get('checkpoint') as { value: string } | undefined;
    return row === undefined ? undefined : BigInt(row.value);
  }

  #wake(): void {
    const position = this.#checkpoint;
    if (position === undefined || this.#waiters.length === 0) return;
    const ready = this.#waiters.filter((waiter) => waiter.position <= position);
    this.#waiters = this.#waiters.filter((waiter) => waiter.position > position);
    for (const waiter of ready) waiter.resolve();
  }
}

function toPet(row: Row): VersionedPet {
  return {
    id: row.pet_id,
    name: row.name,
    categoryId: row.category_id,
    ...(row.status === null ? {} : { status: row.status as PetStatus }),
    version: row.version,
  };
}

const COLUMNS = 'pet_id, version, removed, name, category_id, status';

/**
 * Ends a pet's open version, found through the index of open versions: by the primary key's
 * `pet_id` prefix, it read every version the pet had, n²/2 rows for a pet changed n times (10,000
 * renames took 3–5 s to index, against 0.13 s for 10,000 pets). Exported for the test of its plan.
 */
export const CLOSE_OPEN_VERSION = `UPDATE pet_versions INDEXED BY pet_versions_open SET to_pos = ?, to_time = ?
  WHERE pet_id = ? AND to_pos IS NULL AND version < ?
  RETURNING ${COLUMNS}, from_time`;

function prepare(db: DatabaseSync) {
  const page = (range: string, status: boolean): StatementSync =>
    db.prepare(
      `SELECT ${COLUMNS} FROM pet_versions ${status ? 'INDEXED BY pet_versions_by_status' : ''}
       WHERE ${status ? 'status = ? AND ' : ''}pet_id > ? AND pet_id <= ? AND ${range} AND removed = 0
       ORDER BY pet_id LIMIT ?`,
    );
  const scanEdge = (status: boolean): StatementSync =>
    db.prepare(
      `SELECT pet_id FROM pet_versions ${status ? 'INDEXED BY pet_versions_by_status' : ''}
       WHERE ${status ? 'status = ? AND ' : ''}pet_id > ? ORDER BY pet_id LIMIT 1 OFFSET ?`,
    );
  const byPosition = 'from_pos <= ? AND (to_pos IS NULL OR to_pos > ?)';
  const byTime = 'from_time <= ? AND (to_time IS NULL OR to_time > ?)';
  return {
    insert: db.prepare(
      `INSERT OR IGNORE INTO pet_versions (pet_id, from_pos, from_time, version, removed, name, category_id, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    close: db.prepare(CLOSE_OPEN_VERSION),
    endEarlierVersions: db.prepare('UPDATE pet_versions SET to_time = ? WHERE pet_id = ? AND to_time > ?'),
    petAtPosition: db.prepare(
      `SELECT ${COLUMNS} FROM pet_versions WHERE pet_id = ? AND from_pos <= ? ORDER BY from_pos DESC LIMIT 1`,
    ),
    petAtTime: db.prepare(
      `SELECT ${COLUMNS} FROM pet_versions WHERE pet_id = ? AND from_time <= ? ORDER BY from_pos DESC LIMIT 1`,
    ),
    page: {
      position: { all: page(byPosition, false), status: page(byPosition, true) },
      time: { all: page(byTime, false), status: page(byTime, true) },
    },
    scanEdge: { all: scanEdge(false), status: scanEdge(true) },
    getMeta: db.prepare('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),
  };
}
