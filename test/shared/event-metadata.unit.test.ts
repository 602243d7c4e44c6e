import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { newEventMetadata } from '../../src/shared/event-metadata.ts';

const at = new Date('2026-03-01T12:00:00.000Z');
const clock = { now: () => at, nowMs: () => at.getTime() };

it('stamps the time, the request as correlation and causation, and the acting key', () => {
  const correlationId = `req-${randomUUID()}`;
  const apiKeyId = `key_${randomUUID()}`;
  const metadata = newEventMetadata(clock, { correlationId, apiKeyId }, 2);
  expect(metadata).toEqual({
    eventId: metadata.eventId,
    occurredAt: '2026-03-01T12:00:00.000Z',
    correlationId,
    causationId: correlationId,
    schemaVersion: 2,
    apiKeyId,
  });
});

it('leaves the key out when no key acted (the CLI, the system), rather than recording it as undefined', () => {
  const metadata = newEventMetadata(clock, { correlationId: `req-${randomUUID()}` });
  expect(Object.keys(metadata)).toEqual([
    'eventId',
    'occurredAt',
    'correlationId',
    'causationId',
    'schemaVersion',
  ]);
});

it('names what caused the event when the context says, and gives every event an id of its own', () => {
  const context = { correlationId: `req-${randomUUID()}`, causationId: randomUUID() };
  const [first, second] = [newEventMetadata(clock, context), newEventMetadata(clock, context)];
  expect(first.causationId).toBe(context.causationId);
  expect(first.eventId).not.toBe(second.eventId);
});
