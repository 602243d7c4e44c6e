import { describe, expect, it } from 'vitest';
import { toKafkaMessage } from '../../src/forwarding/message.ts';

const event = {
  streamName: 'pet-42',
  revision: 3n,
  position: 170141183460469231722463931679029329919n,
  type: 'PetCreated',
  data: { id: 42, name: 'Rex', categoryId: 7 },
  metadata: {
    eventId: '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11',
    occurredAt: '2026-01-02T03:04:05.000Z',
    correlationId: 'c-1',
    schemaVersion: 2,
  },
};

describe('Kafka message of an event', () => {
  it('is keyed by the stream, so one stream stays in one partition', () => {
    expect(toKafkaMessage(event).key).toBe('pet-42');
  });

  it('carries event id, type, schema version, position and correlation id as headers', () => {
    expect(toKafkaMessage(event).headers).toEqual({
      'event-id': '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11',
      'event-type': 'PetCreated',
      'schema-version': '2',
      position: '170141183460469231722463931679029329919',
      'content-type': 'application/json',
      'correlation-id': 'c-1',
    });
  });

  it('carries the trace context and the causation id when the event has them', () => {
    const traced = {
      ...event,
      metadata: {
        ...event.metadata,
        causationId: 'req-7',
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      },
    };
    expect(toKafkaMessage(traced).headers).toMatchObject({
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      'correlation-id': 'c-1',
      'causation-id': 'req-7',
    });
  });

  it('holds the event as JSON with revision and position as exact decimal strings', () => {
    expect(JSON.parse(toKafkaMessage(event).value)).toEqual({
      eventId: '0b7f2a52-54a4-4c38-9a55-2f7b0b6f1e11',
      type: 'PetCreated',
      streamName: 'pet-42',
      revision: '3',
      position: '170141183460469231722463931679029329919',
      data: { id: 42, name: 'Rex', categoryId: 7 },
      metadata: event.metadata,
    });
  });

  it('publishes an API key’s issue without its secret hash, and everything else intact', () => {
    const issued = {
      streamName: 'api-key-key_7Qm2',
      revision: 0n,
      position: 12n,
      type: 'ApiKeyIssued',
      data: {
        keyId: 'key_7Qm2',
        name: 'shop',
        plan: 'pro',
        limits: { perMinute: 600 },
        secretHash: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
        issuedAt: '2026-01-02T03:04:05.000Z',
      },
      metadata: event.metadata,
    };
    const message = toKafkaMessage(issued);
    expect(message.value).not.toContain('secretHash');
    expect(message.value).not.toContain('n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg');
    expect(JSON.parse(message.value).data).toEqual({
      keyId: 'key_7Qm2',
      name: 'shop',
      plan: 'pro',
      limits: { perMinute: 600 },
      issuedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(message.headers['event-type']).toBe('ApiKeyIssued');
  });

  it('publishes a key rotation without the new secret’s hash', () => {
    const rotated = {
      ...event,
      type: 'ApiKeySecretRotated',
      streamName: 'apikey-key_7Qm2',
      data: {
        keyId: 'key_7Qm2',
        secretHash: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
        rotatedAt: '2026-01-02T03:04:05.000Z',
        previousSecretValidUntil: '2026-01-02T04:04:05.000Z',
      },
    };
    expect(JSON.parse(toKafkaMessage(rotated).value).data).toEqual({
      keyId: 'key_7Qm2',
      rotatedAt: '2026-01-02T03:04:05.000Z',
      previousSecretValidUntil: '2026-01-02T04:04:05.000Z',
    });
  });
});
