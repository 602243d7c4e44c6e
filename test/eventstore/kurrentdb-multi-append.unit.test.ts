import { type KurrentDBClient, WrongExpectedVersionError } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { WrongExpectedRevisionError } from '../../src/application/ports/event-store.ts';
import { kurrentDbEventStore } from '../../src/eventstore/kurrentdb.ts';

/**
 * The KurrentDB adapter's atomic append to several streams, proven against a fake KurrentDB client
 * that records calls (no KurrentDB server runs here; the conformance suite runs the same behaviour
 * against a real one where Docker is available).
 */

const log = { warn: () => {}, error: () => {} };
const metadata = (eventId: string) => ({
  eventId,
  occurredAt: '2030-01-15T10:00:05.000Z',
  correlationId: 'req-1',
  schemaVersion: 1,
  apiKeyId: 'key_1',
});
const appends = [
  {
    streamName: 'order-7',
    events: [
      {
        type: 'OrderPlaced',
        data: { orderId: 7, petId: 3 },
        metadata: metadata('0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11'),
      },
    ],
    expectedRevision: 'no_stream' as const,
  },
  {
    streamName: 'pet-3',
    events: [
      {
        type: 'PetStatusChanged',
        data: { id: 3, status: 'pending' },
        metadata: metadata('1b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11'),
      },
    ],
    expectedRevision: 4n,
  },
];

function fakeClient(multiStreamAppend: (requests: unknown[]) => Promise<unknown>) {
  const calls: { multiStreamAppend: unknown[][]; readStream: unknown[][] } = {
    multiStreamAppend: [],
    readStream: [],
  };
  const client = {
    multiStreamAppend: (requests: unknown[]) => {
      calls.multiStreamAppend.push(requests);
      return multiStreamAppend(requests);
    },
    readStream: (...args: unknown[]) => {
      calls.readStream.push(args);
      return (async function* () {
        yield {
          event: {
            streamId: 'pet-3',
            revision: 5n,
            type: 'PetStatusChanged',
            isJson: true,
            data: { id: 3, status: 'pending' },
            // As KurrentDB reads back an event of a multi-stream append: its properties, with the
            // schema's name and format added (EventRecord.SynthesizeMetadataFromProperties).
            metadata: {
              eventId: 'x',
              occurredAt: 'y',
              correlationId: 'z',
              schemaVersion: '1',
              '$schema.name': 'PetStatusChanged',
              '$schema.format': 'Json',
            },
            position: { commit: 900n, prepare: 880n },
          },
        };
      })();
    },
  } as unknown as KurrentDBClient;
  return { client, calls };
}

describe('appendToStreams on KurrentDB, with a fake client that records calls', () => {
  it('sends every stream in one multiStreamAppend, each with its expected state and string metadata', async () => {
    const { client, calls } = fakeClient(async () => ({
      position: 12345n,
      responses: [
        { streamName: 'order-7', revision: 0n },
        { streamName: 'pet-3', revision: 5n },
      ],
    }));
    await kurrentDbEventStore(client, log).appendToStreams(appends);
    const [requests] = calls.multiStreamAppend as [
      {
        streamName: string;
        expectedState: unknown;
        events: { type: string; metadata: unknown; id: string }[];
      }[],
    ];
    expect(requests.map((request) => [request.streamName, request.expectedState])).toEqual([
      ['order-7', 'no_stream'],
      ['pet-3', 4n],
    ]);
    expect(requests[0]!.events[0]).toMatchObject({
      type: 'OrderPlaced',
      id: '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11',
      metadata: {
        eventId: '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11',
        occurredAt: '2030-01-15T10:00:05.000Z',
        correlationId: 'req-1',
        schemaVersion: '1',
        apiKeyId: 'key_1',
      },
    });
  });

  it('answers each stream’s revision, and the exact position of the last event read back from the leader', async () => {
    const { client, calls } = fakeClient(async () => ({
      position: 12345n,
      responses: [
        { streamName: 'pet-3', revision: 5n },
        { streamName: 'order-7', revision: 0n },
      ],
    }));
    const result = await kurrentDbEventStore(client, log).appendToStreams(appends);
    expect(result).toEqual({ nextExpectedRevisions: [0n, 5n], position: (900n << 64n) | 880n });
    expect(calls.readStream[0]).toEqual(['pet-3', { fromRevision: 5n, maxCount: 1, requiresLeader: true }]);
  });

  it('turns a revision conflict on either stream into WrongExpectedRevisionError naming that stream', async () => {
    const conflict = new WrongExpectedVersionError(undefined, {
      streamName: 'pet-3',
      expected: 4n,
      current: 6n,
    } as never);
    const { client } = fakeClient(async () => {
      throw conflict;
    });
    const failure = await kurrentDbEventStore(client, log)
      .appendToStreams(appends)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
    expect(failure).toMatchObject({ streamName: 'pet-3', expected: 4n, actual: 6n });
  });

  it('reads string metadata back with its schemaVersion a number', async () => {
    const { client } = fakeClient(async () => ({ position: 1n, responses: [] }));
    const [event] = await kurrentDbEventStore(client, log).readStream('pet-3');
    expect(event?.metadata.schemaVersion).toBe(1);
  });

  it('reads metadata back without the $schema keys KurrentDB adds to a multi-stream append’s events', async () => {
    const { client } = fakeClient(async () => ({ position: 1n, responses: [] }));
    const [event] = await kurrentDbEventStore(client, log).readStream('pet-3');
    expect(event?.metadata).toEqual({ eventId: 'x', occurredAt: 'y', correlationId: 'z', schemaVersion: 1 });
  });
});
