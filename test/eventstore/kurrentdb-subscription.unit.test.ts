import { randomUUID } from 'node:crypto';
import type { AllStreamResolvedEvent, AllStreamSubscription } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { packPosition } from '../../src/eventstore/kurrentdb-position.ts';
import { resubscribingSubscription } from '../../src/eventstore/kurrentdb-subscription.ts';
import type { RecordedEvent } from '../../src/application/ports/event-store.ts';

/** A server subscription that delivers `events`, then fails (a dropped connection) or ends. */
function serverSubscription(
  events: AllStreamResolvedEvent[],
  end: 'drop' | 'end' | 'hang',
): AllStreamSubscription {
  async function* deliver(): AsyncGenerator<AllStreamResolvedEvent> {
    yield* events;
    if (end === 'drop') throw new Error('14 UNAVAILABLE: Connection dropped');
    if (end === 'hang') await new Promise(() => {});
  }
  const iterator = deliver();
  return {
    [Symbol.asyncIterator]: () => iterator,
    unsubscribe: async () => {},
  } as unknown as AllStreamSubscription;
}

function resolved(commit: bigint, type: string): AllStreamResolvedEvent {
  return {
    event: {
      streamId: 'pet-1',
      id: randomUUID(),
      isJson: true,
      revision: commit,
      type,
      created: new Date(0),
      data: {},
      metadata: {},
      position: { commit, prepare: commit },
    },
  } as AllStreamResolvedEvent;
}

async function take(subscription: AsyncIterable<RecordedEvent>, count: number): Promise<string[]> {
  const types: string[] = [];
  for await (const event of subscription) {
    types.push(event.type);
    if (types.length === count) break;
  }
  return types;
}

const quietLog = { warn: () => {}, error: () => {} };

describe('resubscribing KurrentDB subscription', () => {
  it('reopens a dropped subscription from the position of the last event it delivered', async () => {
    const opened: Array<bigint | undefined> = [];
    const scripts = [
      serverSubscription([resolved(10n, 'A'), resolved(20n, 'B')], 'drop'),
      serverSubscription([resolved(30n, 'C')], 'hang'),
    ];
    const subscription = resubscribingSubscription({
      after: undefined,
      open: (after) => {
        opened.push(after);
        return scripts.shift()!;
      },
      log: quietLog,
      firstDelayMs: 1,
      onClose: () => {},
    });
    expect(await take(subscription, 3)).toEqual(['A', 'B', 'C']);
    expect(opened).toEqual([undefined, packPosition({ commit: 20n, prepare: 20n })]);
  });

  it('skips events at or before its checkpoint that a reopened server subscription repeats', async () => {
    const scripts = [
      serverSubscription([resolved(10n, 'A')], 'end'),
      serverSubscription([resolved(10n, 'A again'), resolved(20n, 'B')], 'hang'),
    ];
    const subscription = resubscribingSubscription({
      after: undefined,
      open: () => scripts.shift()!,
      log: quietLog,
      firstDelayMs: 1,
      onClose: () => {},
    });
    expect(await take(subscription, 2)).toEqual(['A', 'B']);
  });

  it('logs each drop with the checkpoint it resumes from', async () => {
    const warnings: Array<[object, string]> = [];
    const scripts = [
      serverSubscription([resolved(7n, 'A')], 'drop'),
      serverSubscription([resolved(8n, 'B')], 'hang'),
    ];
    const subscription = resubscribingSubscription({
      after: undefined,
      open: () => scripts.shift()!,
      log: { warn: (details, message) => warnings.push([details, message]), error: () => {} },
      firstDelayMs: 1,
      onClose: () => {},
    });
    await take(subscription, 2);
    expect(
      warnings.map(([details, message]) => [message, (details as { checkpoint: string }).checkpoint]),
    ).toEqual([
      ['KurrentDB subscription dropped; resubscribing', packPosition({ commit: 7n, prepare: 7n }).toString()],
    ]);
  });

  it('ends its iteration when closed while waiting for events', async () => {
    const subscription = resubscribingSubscription({
      after: undefined,
      open: () => serverSubscription([], 'drop'),
      log: quietLog,
      firstDelayMs: 60_000,
      onClose: () => {},
    });
    const iteration = take(subscription, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await subscription.close();
    expect(await iteration).toEqual([]);
  });

  it('skips an event that is not JSON with an error log, and goes on without resubscribing', async () => {
    const errors: Array<[object, string]> = [];
    const binary = resolved(20n, 'Legacy');
    Object.assign(binary.event!, { isJson: false, data: new Uint8Array([0xca, 0xfe]) });
    let opened = 0;
    const subscription = resubscribingSubscription({
      after: undefined,
      open: () => {
        opened += 1;
        return serverSubscription([resolved(10n, 'A'), binary, resolved(30n, 'B')], 'hang');
      },
      log: { warn: () => {}, error: (details, message) => errors.push([details, message]) },
      firstDelayMs: 1,
      onClose: () => {},
    });
    expect(await take(subscription, 2)).toEqual(['A', 'B']);
    expect(opened).toBe(1);
    expect(errors).toEqual([
      [
        {
          eventId: binary.event!.id,
          streamName: 'pet-1',
          type: 'Legacy',
          position: packPosition({ commit: 20n, prepare: 20n }).toString(),
        },
        'skipping an event this store cannot read: its content type is not application/json',
      ],
    ]);
  });
});
