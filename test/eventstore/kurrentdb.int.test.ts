import { afterAll, describe, it } from 'vitest';
import { openKurrentDbEventStore } from '../../src/eventstore/kurrentdb.ts';
import { describeEventStoreConformance } from './conformance.ts';
import { startKurrentDb } from '../support/kurrentdb.ts';

/**
 * The conformance suite against a real KurrentDB: the server given by EVENT_STORE_URL, else one
 * started by testcontainers. No KurrentDB can be installed on machines without Docker, so there
 * the suite reports that it did not run, and why. It is the one suite allowed not to run in CI.
 */
const server = await startKurrentDb(process.env.EVENT_STORE_URL);

if (server.kind === 'unavailable') {
  console.warn(`KurrentDB conformance suite NOT RUN: ${server.reason}`);
  describe.skip(`EventStore conformance: KurrentDB (not run: ${server.reason})`, () => {
    it('runs the adapter-agnostic conformance suite', () => {});
  });
} else {
  afterAll(() => server.stop());
  describeEventStoreConformance(`KurrentDB (${server.kind})`, async () =>
    openKurrentDbEventStore({ connectionString: server.connectionString, log: console }),
  );
}
