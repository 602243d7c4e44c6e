import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openEventStore } from '../../src/eventstore/index.ts';

/** A loopback port with nothing listening on it: every connection is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('openEventStore with KurrentDB', () => {
  it('reports a subscription that cannot reach the server to the logger it was given', async () => {
    const warnings: string[] = [];
    const log = { warn: (_: object, message: string) => warnings.push(message), error: () => {} };
    const store = await openEventStore(
      { dataDir: '/nonexistent', eventStoreUrl: `kurrentdb://127.0.0.1:${await closedPort()}?tls=false` },
      log,
    );
    const subscription = store.subscribeToAll();
    const iteration = (async () => {
      for await (const _ of subscription) {
        // nothing arrives from a server that is not there
      }
    })();
    const deadline = Date.now() + 20_000;
    while (warnings.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await store.close();
    await iteration;
    expect(warnings[0]).toBe('KurrentDB subscription dropped; resubscribing');
  }, 30_000);
});
