import { decideReserveBlock, type IdBlock, type IdSequence, lastReservedId } from '../domain/id-blocks.ts';
import { type EventStore, WrongExpectedRevisionError } from './ports/event-store.ts';
import { newEventMetadata } from '../shared/event-metadata.ts';
import type { Clock } from '../shared/context.ts';

/**
 * Hands out ids of one kind from blocks reserved in its shared stream (see domain/id-blocks.ts).
 * Reservations are serialised within the process; across processes the stream's expected revision
 * decides who gets a block.
 */
export class IdAllocator {
  readonly #store: EventStore;
  readonly #sequence: IdSequence;
  readonly #blockSize: number;
  readonly #clock: Clock;
  #block: IdBlock | undefined;
  #next = 0;
  #reserving: Promise<void> | undefined;
  /** What this process knows of the stream: its last revision and the last id reserved in it. */
  #known: { revision: bigint | undefined; lastReserved: number } = { revision: undefined, lastReserved: 0 };

  constructor(store: EventStore, sequence: IdSequence, blockSize: number, clock: Clock) {
    this.#store = store;
    this.#sequence = sequence;
    this.#blockSize = blockSize;
    this.#clock = clock;
  }

  async nextId(): Promise<number> {
    while (this.#block === undefined || this.#next > this.#block.last) {
      this.#reserving ??= this.#reserveBlock().finally(() => (this.#reserving = undefined));
      await this.#reserving;
    }
    return this.#next++;
  }

  async #reserveBlock(): Promise<void> {
    for (;;) {
      await this.#catchUp();
      const event = decideReserveBlock(this.#sequence, this.#known.lastReserved, this.#blockSize);
      try {
        const result = await this.#store.appendToStream(
          this.#sequence.stream,
          [
            {
              ...event,
              metadata: newEventMetadata(this.#clock, {
                correlationId: `${this.#sequence.name}-id-allocator`,
              }),
            },
          ],
          { expectedRevision: this.#known.revision ?? 'no_stream' },
        );
        this.#known = { revision: result.nextExpectedRevision, lastReserved: event.data.last };
        this.#block = event.data;
        this.#next = event.data.first;
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        // Another process reserved that block first: read its reservation and take the next one.
      }
    }
  }

  async #catchUp(): Promise<void> {
    const from = this.#known.revision === undefined ? 0n : this.#known.revision + 1n;
    const events = await this.#store.readStream(this.#sequence.stream, { fromRevision: from });
    if (events.length === 0) return;
    this.#known = {
      revision: events[events.length - 1]!.revision,
      lastReserved: Math.max(this.#known.lastReserved, lastReservedId(this.#sequence, events)),
    };
  }
}
