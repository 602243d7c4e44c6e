import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/application/ports/event-store.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { makeTempDir } from '../support/temp-dir.ts';

const temp = makeTempDir();
afterAll(() => temp.remove());

describe('embedded store shared by several processes', () => {
  it('wakes a subscription when another process commits, long before its poll would', async () => {
    const file = path.join(temp.dir, 'events.sqlite');
    const store = openSqliteEventStore({ file, pollIntervalMs: 60_000 });
    const subscription = store.subscribeToAll();
    const first = (async (): Promise<RecordedEvent | undefined> => {
      for await (const event of subscription) return event;
      return undefined;
    })();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the subscription is asleep now

    const script = path.resolve(import.meta.dirname, '../support/append-burst.ts');
    execFileSync(process.execPath, [script, file, '3']);

    const event = await Promise.race([
      first,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000)),
    ]);
    await subscription.close();
    await store.close();
    expect(event?.streamName).toBe('warm-up');
  });
});
