import {
  ANY,
  DeadlineExceededError,
  NO_STREAM,
  NotLeaderError,
  STREAM_EXISTS,
  StreamDeletedError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent as KurrentRecordedEvent } from '@kurrent/kurrentdb-client';
import { packPosition } from '../../src/eventstore/kurrentdb-position.ts';
import {
  positionOf,
  toEventData,
  toStoreUnavailable,
  toStreamState,
  toWrongExpectedRevision,
  whyUnreadable,
} from '../../src/eventstore/kurrentdb-mapping.ts';
import {
  StoreUnavailableError,
  WrongExpectedRevisionError,
} from '../../src/application/ports/event-store.ts';

const metadata = {
  eventId: '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11',
  occurredAt: '2026-01-02T03:04:05.000Z',
  correlationId: 'c-1',
  schemaVersion: 1,
};

describe('KurrentDB mapping', () => {
  it('maps every expected revision of the port to the client’s stream state', () => {
    expect([
      toStreamState('any'),
      toStreamState('no_stream'),
      toStreamState('stream_exists'),
      toStreamState(4n),
    ]).toEqual([ANY, NO_STREAM, STREAM_EXISTS, 4n]);
  });

  it('writes the event id as KurrentDB’s event id, so the server drops a retried append', () => {
    const data = toEventData({ type: 'PetCreated', data: { id: 1 }, metadata });
    expect(data).toMatchObject({ id: metadata.eventId, type: 'PetCreated', contentType: 'application/json' });
    expect(data.data).toEqual({ id: 1 });
    expect(data.metadata).toEqual(metadata);
  });

  it('lets the client choose the id when the event id is not a UUID', () => {
    const data = toEventData({
      type: 'PetCreated',
      data: {},
      metadata: { ...metadata, eventId: 'not-a-uuid' },
    });
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    [
      new UnavailableError({ message: '14 UNAVAILABLE: No connection established' } as never),
      'cannot be reached (14 UNAVAILABLE: No connection established)',
    ],
    [
      new DeadlineExceededError({ message: '4 DEADLINE_EXCEEDED: Deadline exceeded' } as never),
      'did not answer before the deadline (4 DEADLINE_EXCEEDED: Deadline exceeded)',
    ],
    [
      new NotLeaderError({
        message: 'Leader info available',
        metadata: { 'leader-endpoint-host': 'db-2', 'leader-endpoint-port': '2113' },
      } as never),
      'has no leader to take the request (Leader info available)',
    ],
  ])('makes the client’s %o a StoreUnavailableError, retried after 2 s', (error, what) => {
    const unavailable = toStoreUnavailable(error, 'the KurrentDB server at kurrentdb://db:2113');
    expect(unavailable).toBeInstanceOf(StoreUnavailableError);
    expect(unavailable).toMatchObject({
      status: 503,
      code: 'store_unavailable',
      reason: 'unreachable',
      detail: `the KurrentDB server at kurrentdb://db:2113 ${what}`,
      headers: { 'Retry-After': '2' },
    });
  });

  it('leaves the client’s other errors as they are', () => {
    const deleted = StreamDeletedError.fromStreamName('pet-1');
    expect(toStoreUnavailable(deleted, 'the KurrentDB server')).toBe(deleted);
  });

  it('reports a conflict on a missing stream as actual no_stream', () => {
    const error = toWrongExpectedRevision(
      'pet-1',
      2n,
      new WrongExpectedVersionError(undefined, { streamName: 'pet-1', expected: 2n, current: NO_STREAM }),
    );
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ streamName: 'pet-1', expected: 2n, actual: 'no_stream' });
  });

  it('reports the stream’s actual last revision on a conflict', () => {
    const error = toWrongExpectedRevision(
      'pet-1',
      'no_stream',
      new WrongExpectedVersionError(undefined, { streamName: 'pet-1', expected: NO_STREAM, current: 5n }),
    );
    expect(error).toMatchObject({ expected: 'no_stream', actual: 5n });
  });

  it.each([
    [{ isJson: false, data: new Uint8Array([1]) }, 'its content type is not application/json'],
    [{ isJson: true, data: '{"id": 1' }, 'its data is not a JSON object'],
    [{ isJson: true, data: [1, 2] }, 'its data is not a JSON object'],
    [{ isJson: true, data: {}, metadata: new Uint8Array([1]) }, 'its metadata is not a JSON object'],
    [{ isJson: true, data: {}, metadata: undefined }, 'its metadata is not a JSON object'],
  ])('names why an event cannot be read: %o', (fields, reason) => {
    expect(whyUnreadable(recorded(fields))).toBe(reason);
  });

  it('reads a JSON event with object data and metadata', () => {
    expect(whyUnreadable(recorded({}))).toBeUndefined();
  });

  it('takes a stream-read event’s position exactly when the server sends it', () => {
    const position = { commit: 4_096n, prepare: 4_200n };
    expect(positionOf(recorded({ position }), 4_096n)).toBe(packPosition(position));
  });

  it('falls back to a lower bound when the server sends no log position for a stream read', () => {
    const unknown = { commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n };
    expect(positionOf(recorded({ position: unknown }), 4_096n)).toBe(
      packPosition({ commit: 4_096n, prepare: 0n }),
    );
    expect(positionOf(recorded({ position: undefined }), undefined)).toBe(0n);
  });
});

function recorded(fields: Record<string, unknown>): KurrentRecordedEvent {
  return {
    streamId: 'pet-1',
    id: metadata.eventId,
    isJson: true,
    revision: 0n,
    type: 'PetCreated',
    created: new Date(0),
    data: { id: 1 },
    metadata,
    ...fields,
  } as KurrentRecordedEvent;
}
