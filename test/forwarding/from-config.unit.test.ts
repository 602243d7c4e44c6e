import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { startConfiguredForwarder } from '../../src/forwarding/from-config.ts';
import { makeTempDir } from '../support/temp-dir.ts';

const temp = makeTempDir('petstore-from-config-');
const store = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
afterAll(async () => {
  await store.close();
  temp.remove();
});

describe('the configured forwarder', () => {
  it('refuses an empty KAFKA_BROKERS with a ConfigError, in-process and standalone alike', () => {
    const config = { kafka: { brokers: [], topic: 't', clientId: 'c', inProcessForwarder: true } };
    const start = () => startConfiguredForwarder(config, store, { info: () => {}, warn: () => {} });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow('KAFKA_BROKERS is required by the Kafka forwarder (host:port, comma-separated).');
  });
});
