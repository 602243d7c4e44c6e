import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/application/ports/event-store.ts';
import { type AppendObserver, chainObservers } from '../../src/observability/observed-store.ts';

/** An observer that records its name around the append, and stamps the events it passes on. */
function naming(name: string, calls: string[]): AppendObserver {
  return async (events, append) => {
    calls.push(`${name} before`);
    const result = await append(events.map((event) => ({ ...event, type: `${event.type}+${name}` })));
    calls.push(`${name} after`);
    return result;
  };
}

const EVENT: NewEvent = {
  type: 'PetCreated',
  data: {},
  metadata: { eventId: 'e', occurredAt: '2026-11-27T00:00:00.000Z', correlationId: 'c', schemaVersion: 1 },
};

describe('chainObservers', () => {
  it('runs the observers around one append, the first outermost, each passing on what it was given', async () => {
    const calls: string[] = [];
    const appended: string[][] = [];
    const chained = chainObservers([
      naming('tracing', calls),
      naming('metrics', calls),
      naming('writes', calls),
    ])!;
    const result = await chained([EVENT], async (events) => {
      appended.push(events.map((event) => event.type));
      return 'done';
    });
    expect([result, appended, calls]).toEqual([
      'done',
      [['PetCreated+tracing+metrics+writes']],
      ['tracing before', 'metrics before', 'writes before', 'writes after', 'metrics after', 'tracing after'],
    ]);
  });

  it('is undefined for no observer: the store needs no decorator', () => {
    expect(chainObservers([])).toBeUndefined();
  });
});
