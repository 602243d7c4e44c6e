import type { EventMetadata, RecordedEvent } from '../application/ports/event-store.ts';

/** A row of the events table, as read with `setReturnArrays(true)`. */
export type Row = [
  position: number,
  stream: string,
  revision: number,
  type: string,
  data: string,
  metadata: string,
];

/** A row read without its metadata (see `SubscribeToAllOptions.lazyMetadata`). */
export type LeanRow = [position: number, stream: string, revision: number, type: string, data: string];

/** The metadata column of the event at a position. */
export type MetadataAt = (position: number) => string;

/**
 * Metadata is parsed on first use, and read then too for a lean row: projections replaying
 * millions of events rarely need it, and its text is most of what a row weighs.
 */
class SqliteRecordedEvent implements RecordedEvent {
  readonly position: bigint;
  readonly streamName: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly #rawMetadata: string | MetadataAt;
  #metadata: EventMetadata | undefined;

  constructor(row: Row | LeanRow, metadataAt: MetadataAt | undefined) {
    this.position = BigInt(row[0]);
    this.streamName = row[1];
    this.revision = BigInt(row[2]);
    this.type = row[3];
    this.data = JSON.parse(row[4]) as Record<string, unknown>;
    this.#rawMetadata = row.length === 6 ? row[5] : metadataAt!;
  }

  get metadata(): EventMetadata {
    const raw = this.#rawMetadata;
    this.#metadata ??= JSON.parse(
      typeof raw === 'string' ? raw : raw(Number(this.position)),
    ) as EventMetadata;
    return this.#metadata;
  }

  toJSON(): object {
    return { ...this, metadata: this.metadata };
  }
}

export function toRecordedEvent(row: Row): RecordedEvent {
  return new SqliteRecordedEvent(row, undefined);
}

/** An event read without its metadata, which `metadataAt` reads when it is first asked for. */
export function toLeanRecordedEvent(row: LeanRow, metadataAt: MetadataAt): RecordedEvent {
  return new SqliteRecordedEvent(row, metadataAt);
}
