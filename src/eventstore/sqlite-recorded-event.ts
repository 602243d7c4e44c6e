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

/** Metadata is parsed on first use: projections replaying millions of events rarely need it. */
class SqliteRecordedEvent implements RecordedEvent {
  readonly position: bigint;
  readonly streamName: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly #rawMetadata: string;
  #metadata: EventMetadata | undefined;

  constructor(row: Row) {
    this.position = BigInt(row[0]);
    this.streamName = row[1];
    this.revision = BigInt(row[2]);
    this.type = row[3];
    this.data = JSON.parse(row[4]) as Record<string, unknown>;
    this.#rawMetadata = row[5];
  }

  get metadata(): EventMetadata {
    this.#metadata ??= JSON.parse(this.#rawMetadata) as EventMetadata;
    return this.#metadata;
  }

  toJSON(): object {
    return { ...this, metadata: this.metadata };
  }
}

export function toRecordedEvent(row: Row): RecordedEvent {
  return new SqliteRecordedEvent(row);
}
