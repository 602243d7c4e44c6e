import {
  type EventMetadata,
  type RecordedEvent,
  UnreadableEventError,
} from '../application/ports/event-store.ts';

/** A row of the events table, as read with `setReturnArrays(true)`. */
export type Row = [
  position: number,
  stream: string,
  revision: number,
  type: string,
  data: string,
  metadata: string,
];

/** A row read without its stream name and metadata (see `SubscribeToAllOptions.lean`). */
export type LeanRow = [position: number, revision: number, type: string, data: string];

/** The stream name and metadata columns of the event at a position. */
export type StreamAndMetadataAt = (position: number) => [stream: string, metadata: string];

/**
 * Metadata is parsed on first use; for a lean row, it and the stream name are read then too.
 * Projections replaying millions of events rarely need either: metadata's text is most of what a
 * row weighs, and the stream name a string made for every row (a rebuild of a million pets took
 * about 3% less time without it).
 */
class SqliteRecordedEvent implements RecordedEvent {
  readonly #position: number;
  readonly revision: bigint;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  #streamName: string | undefined;
  #rawMetadata: string | undefined;
  readonly #rest: StreamAndMetadataAt | undefined;
  #metadata: EventMetadata | undefined;

  /** `streamName` and `rawMetadata` as read, or both undefined and `rest` to read them when asked. */
  constructor(
    position: number,
    revision: number,
    type: string,
    data: string,
    streamName: string | undefined,
    rawMetadata: string | undefined,
    rest?: StreamAndMetadataAt,
  ) {
    this.#position = position;
    this.revision = BigInt(revision);
    this.type = type;
    this.#streamName = streamName;
    this.#rawMetadata = rawMetadata;
    this.#rest = rest;
    this.data = this.#object(data, 'data');
  }

  /**
   * Made when asked for: a replay asks only the last event of each batch, and a million bigints
   * made for nothing were about 6% of a rebuild's time.
   */
  get position(): bigint {
    return BigInt(this.#position);
  }

  get streamName(): string {
    if (this.#streamName === undefined) this.#readRest();
    return this.#streamName!;
  }

  get metadata(): EventMetadata {
    if (this.#metadata !== undefined) return this.#metadata;
    if (this.#rawMetadata === undefined) this.#readRest();
    this.#metadata = this.#object(this.#rawMetadata!, 'metadata') as EventMetadata;
    return this.#metadata;
  }

  /** The column's JSON object; anything else throws UnreadableEventError. */
  #object(text: string, column: 'data' | 'metadata'): Record<string, unknown> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw this.#unreadable(`its ${column} is not JSON (${(error as Error).message})`);
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw this.#unreadable(`its ${column} is ${kind}, not a JSON object`);
  }

  #unreadable(why: string): UnreadableEventError {
    let stream = this.#streamName;
    try {
      stream ??= this.#rest?.(this.#position)[0];
    } catch {
      // Named without its stream.
    }
    const where = ` (${stream === undefined ? '' : `stream ${stream}, `}revision ${this.revision}, ${this.type})`;
    return new UnreadableEventError(BigInt(this.#position), where, why);
  }

  #readRest(): void {
    [this.#streamName, this.#rawMetadata] = this.#rest!(this.#position);
  }

  toJSON(): object {
    const { position, streamName, revision, type, data, metadata } = this;
    return { position, streamName, revision, type, data, metadata };
  }
}

export function toRecordedEvent(row: Row): RecordedEvent {
  return new SqliteRecordedEvent(row[0], row[2], row[3], row[4], row[1], row[5]);
}

/** An event read without its stream name and metadata, which `rest` reads when first asked for. */
export function toLeanRecordedEvent(row: LeanRow, rest: StreamAndMetadataAt): RecordedEvent {
  return new SqliteRecordedEvent(row[0], row[1], row[2], row[3], undefined, undefined, rest);
}
